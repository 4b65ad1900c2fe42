// A restart of a big project: its vector cache read back from the snapshot's rows' file with its IVF index part
// (src/vectors/indexPart.ts) beside the same rows' file without one (as every file was before the index was kept:
// the index trained again after the load), in one run over one generated world (bench/support/bigWorld.ts, hashing embedder, whole-chunk texts as
// the rows). Reports per size: the file's size, the load, and the time until the cache answers dense queries
// through the index. Then the column copy of sparse queries: the first sparse search (now answered by the row
// scan while the copy is built in the background) beside the copy's build, which that search used to do itself.
// Usage: bun bench/index-restart.ts [--sizes 100000,1000000] [--runs 3]
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { HashingEmbedder } from "../src/vectors/HashingEmbedder.ts";
import { ProjectVectorCache } from "../src/vectors/ProjectVectorCache.ts";
import { commitSnapshot, readSnapshot, restoreInto, writeSnapshotTmp } from "../src/vectors/cacheSnapshot.ts";
import { encodeIndex } from "../src/vectors/ivfSnapshot.ts";
import { indexPartPath, readIndexPart, writeIndexPartTmp } from "../src/vectors/indexPart.ts";
import { bigWorld } from "./support/bigWorld.ts";

const { values: args } = parseArgs({ options: { sizes: { type: "string", default: "100000" }, runs: { type: "string", default: "3" } } });
const embedder = new HashingEmbedder();
const dims = embedder.dims;
const dir = mkdtempSync(join(tmpdir(), "lorehold-bench-restart-"));
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const out: string[] = [];
try {
  for (const size of args.sizes!.split(",").map(Number)) {
    const world = bigWorld({ chunks: size, queries: 1 });
    const opts = { indexMinRows: 1 };
    const cache = new ProjectVectorCache(dims, "p", opts);
    for (let i = 0; i < world.chunks.length; i += 1000) {
      const part = world.chunks.slice(i, i + 1000);
      const vecs = await embedder.embed(part.map((c) => c.text));
      const byDoc = Map.groupBy(part.map((c, j) => ({ c, v: vecs[j] })), (x) => x.c.documentId);
      for (const [doc, xs] of byDoc) cache.setDocument(doc, xs.map(({ c }) => ({ ...c, projectId: "p", locationId: null })), xs.map((x) => x.v));
    }
    await cache.indexIdle();
    const meta = { gen: 1, embedderId: embedder.id, dims, projectId: "p" };
    const blocks = cache.blocks();
    const ex = cache.extras();
    const index = await encodeIndex(ex.index!.parts, ex.index!.trainedRows, blocks, () => Bun.sleep(0));
    if (!index) throw new Error("index not encodable");
    const without = join(dir, `${size}-without.vc`);
    const withIx = join(dir, `${size}-with.vc`);
    commitSnapshot(await writeSnapshotTmp(without, meta, blocks), without);
    const stamp = crypto.randomUUID();
    commitSnapshot(await writeSnapshotTmp(withIx, { ...meta, stamp }, blocks), withIx);
    commitSnapshot(await writeIndexPartTmp(withIx, { stamp, rows: size, dims }, index, false), indexPartPath(withIx));
    // a restart, alternately from each file: wall and CPU of the load, and until dense queries go through the index
    const restart = async (path: string) => {
      const c0 = cpu();
      const t0 = performance.now();
      const c = new ProjectVectorCache(dims, "p", opts);
      const file = readSnapshot(path)!;
      restoreInto(c, file, readIndexPart(path, file.header).part);
      const loaded = performance.now() - t0;
      await c.indexIdle();
      if (c.mode !== "indexed") throw new Error("not indexed");
      return { loaded, indexed: performance.now() - t0, cpu: cpu() - c0 };
    };
    const res = { without: [] as Awaited<ReturnType<typeof restart>>[], with: [] as Awaited<ReturnType<typeof restart>>[] };
    for (let r = 0; r < Number(args.runs); r++) {
      res.without.push(await restart(without));
      res.with.push(await restart(withIx));
      Bun.gc(true);
    }
    const mb = (p: string) => ((statSync(p).size + (p === withIx ? statSync(indexPartPath(p)).size : 0)) / 1e6).toFixed(1);
    const row = (label: string, xs: typeof res.with, path: string) =>
      `| ${size.toLocaleString("en")} | ${label} | ${mb(path)} MB | ${median(xs.map((x) => x.loaded)).toFixed(0)} ms | ${median(xs.map((x) => x.indexed)).toFixed(0)} ms | ${median(xs.map((x) => x.cpu)).toFixed(0)} ms |`;
    out.push(row("file without the index (as before): trained again", res.without, without), row("rows' file with its index part (now)", res.with, withIx));
    const ratio = median(res.with.map((x) => x.indexed)) / median(res.without.map((x) => x.indexed));
    out.push(`| | now ÷ before, until indexed | | | ${ratio.toFixed(3)} | |`);

    // the column copy: a fresh restore per run (no copy yet), then its first sparse search and the copy's build
    const sparse = (await embedder.embed(["Tell me about the harbour and the lantern."]))[0];
    const tags = new Set(world.tags.slice(0, 3));
    const firsts: number[] = [];
    const builds: number[] = [];
    const slices: number[] = [];
    const later: number[] = [];
    for (let r = 0; r < Number(args.runs); r++) {
      const c = new ProjectVectorCache(dims, "p", { indexMinRows: 0 });
      restoreInto(c, readSnapshot(without)!);
      let t0 = performance.now();
      c.search(sparse, tags, 8);
      firsts.push(performance.now() - t0);
      // the longest stretch the build holds the event loop, sampled by a timer that asks every ms
      let last = performance.now();
      let longest = 0;
      const tick = setInterval(() => {
        const now = performance.now();
        longest = Math.max(longest, now - last);
        last = now;
      }, 1);
      t0 = performance.now();
      await c.indexIdle();
      builds.push(performance.now() - t0);
      clearInterval(tick);
      slices.push(longest);
      t0 = performance.now();
      c.search(sparse, tags, 8);
      later.push(performance.now() - t0);
      Bun.gc(true);
    }
    out.push(
      `| ${size.toLocaleString("en")} | column copy | first sparse search ${median(firsts).toFixed(1)} ms (row scan) | copy built in the background in ${median(builds).toFixed(0)} ms, longest stall ${median(slices).toFixed(1)} ms | next search ${median(later).toFixed(1)} ms (columns) | before: the first search ≈ copy + columns |`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(`\n${availableParallelism()} cores (${cpus()[0]?.model}), load ${loadavg()[0].toFixed(1)}; Bun ${Bun.version}; medians of ${args.runs} runs\n`);
console.log("| rows | file | size | load | until indexed | CPU until indexed |");
console.log("|---|---|---|---|---|---|");
for (const l of out) console.log(l);
