import { statSync } from "node:fs";
import { join } from "node:path";
import { commitSnapshot, readSnapshot, writeSnapshotTmp } from "../../src/vectors/cacheSnapshot.ts";
import type { DocumentBlock } from "../../src/vectors/cacheBlocks.ts";
import { indexPartPath, writeIndexPartTmp } from "../../src/vectors/indexPart.ts";
import { encodeIndex } from "../../src/vectors/ivfSnapshot.ts";
import type { RowsOnDisk } from "../../src/vectors/loadProjectCache.ts";
import { ProjectVectorCache } from "../../src/vectors/ProjectVectorCache.ts";
import type { ChunkRow } from "../../src/vectors/rows.ts";
import { restoreRows } from "../../src/vectors/restoreRows.ts";
import { appendSegment, readTail } from "../../src/vectors/rowsTail.ts";
import { PART_LAG_ROWS, planTail, type TailPlan } from "../../src/vectors/tailPlan.ts";

type Docs = Map<string, { rows: ChunkRow[]; vectors: Float32Array[] }>;

/**
 * bench/snapshot-parts.ts --what tail: what a save writes after a small change, as before the rows' file had a tail
 * (ProjectCaches wrote the whole rows' file, then the index part) and now (a segment appended to the tail; the index
 * part, listing the rows' file's view, stays, and a load applies the segment to it), both through the functions the
 * server calls, alternated run by run; and a cold load of the same rows, indexed, from a rows' file with its tail and
 * from one rows' file.
 */
export async function tailSaves(o: { dir: string; size: number; dims: number; embedderId: string; runs: number; byDoc: Docs; newDocs: Docs; cpu: () => number; median: (xs: number[]) => number }) {
  const { dims, size } = o;
  const cache = new ProjectVectorCache(dims, "p", { indexMinRows: 1 });
  const own = (rows: ChunkRow[]) => rows.map((r) => ({ ...r, id: r.id.slice(0), tags: [...r.tags] }));
  for (const [doc, d] of o.byDoc) cache.setDocument(doc, own(d.rows), d.vectors);
  await cache.indexIdle();
  const meta = { gen: 1, embedderId: o.embedderId, dims, projectId: "p" };
  const rowsPath = join(o.dir, `${size}-tail.vc`);
  const foldPath = join(o.dir, `${size}-fold.vc`);
  const stamp = crypto.randomUUID();
  const base = cache.blocks();
  commitSnapshot(await writeSnapshotTmp(rowsPath, { ...meta, stamp }, base), rowsPath);
  // the index part over the rows' file, as the save after the load from LanceDB (or the training) left it
  const ex0 = cache.extras();
  const part0 = await encodeIndex(ex0.index!.parts, ex0.index!.trainedRows, base, async () => {});
  commitSnapshot(await writeIndexPartTmp(rowsPath, { stamp, rows: size, dims }, part0!, ex0.columns), indexPartPath(rowsPath));
  const onDisk: RowsOnDisk = { stamp, blocks: base, base: { stamp, rows: size }, tail: { bytes: 0, rows: 0, segments: 0 }, partLag: 0 };
  const count = (blocks: DocumentBlock[]) => blocks.reduce((s, b) => s + b.scales.length, 0);
  const encode = async (blocks: DocumentBlock[]) => {
    const ex = cache.extras();
    const index = await encodeIndex(ex.index!.parts, ex.index!.trainedRows, blocks, async () => {});
    if (!index) throw new Error("index not encodable over these rows");
    return { index, columns: ex.columns };
  };
  /** the save as it was: a new rows' file of every live row, then the index part naming it */
  const whole = async (blocks: DocumentBlock[]) => {
    const { index, columns } = await encode(blocks);
    const st = crypto.randomUUID();
    const tmp = await writeSnapshotTmp(foldPath, { ...meta, stamp: st }, blocks, { index: null, columns });
    const part = await writeIndexPartTmp(foldPath, { stamp: st, rows: count(blocks), dims }, index, columns);
    commitSnapshot(tmp, foldPath);
    commitSnapshot(part, indexPartPath(foldPath));
    return statSync(foldPath).size + statSync(indexPartPath(foldPath)).size;
  };
  /**
   * the save now: a segment appended to the tail (each run starts the tail again); the index part stays, unless the
   * rows added since its view pass PART_LAG_ROWS: then written again over the view after the segment
   */
  const appended = async (plan: TailPlan) => {
    const st = crypto.randomUUID();
    const rows = count(plan.view);
    const { end } = await appendSegment(rowsPath, 0, { base: stamp, prev: stamp, stamp: st, rows, dims, removed: plan.removed }, plan.added);
    // the part over the rows' file stays (the scenarios that keep it come before any that writes it again)
    if (count(plan.added) <= PART_LAG_ROWS) return end;
    const { index, columns } = await encode(plan.view);
    commitSnapshot(await writeIndexPartTmp(rowsPath, { stamp: st, rows, dims }, index, columns), indexPartPath(rowsPath));
    return end + statSync(indexPartPath(rowsPath)).size;
  };
  const timed = async (f: () => Promise<number>) => {
    const c0 = o.cpu();
    const t0 = performance.now();
    const bytes = await f();
    return { bytes, ms: performance.now() - t0, cpu: o.cpu() - c0 };
  };
  const mb = (b: number) => (b >= 1e5 ? `${(b / 1e6).toFixed(2)} MB` : `${(b / 1e3).toFixed(1)} kB`);
  const saves: string[] = [];
  const compare = async (label: string) => {
    const blocks = cache.blocks();
    const plan = planTail(onDisk, blocks);
    if (!plan) throw new Error(`${label}: past the tail's share`);
    const b: Awaited<ReturnType<typeof timed>>[] = [];
    const n: Awaited<ReturnType<typeof timed>>[] = [];
    for (let r = 0; r < o.runs; r++) {
      b.push(await timed(() => whole(blocks)));
      n.push(await timed(() => appended(plan)));
      Bun.gc(true);
    }
    const m = (xs: typeof b, k: "bytes" | "ms" | "cpu") => o.median(xs.map((x) => x[k]));
    saves.push(
      `| ${size.toLocaleString("en")} | ${label} | ${mb(m(b, "bytes"))}, ${m(b, "cpu").toFixed(0)} ms CPU, ${m(b, "ms").toFixed(0)} ms wall | ${mb(m(n, "bytes"))}, ${m(n, "cpu").toFixed(1)} ms CPU, ${m(n, "ms").toFixed(1)} ms wall | **${(m(b, "bytes") / m(n, "bytes")).toFixed(0)}×** | ${(m(b, "cpu") / m(n, "cpu")).toFixed(0)}× |`,
    );
  };

  // a cold load of the rows as they are: the rows' file with its tail, and one rows' file (the fold), alternated
  const load = (path: string) => {
    const c0 = o.cpu();
    const s = performance.now();
    const c = new ProjectVectorCache(dims, "p", { indexMinRows: 1 });
    const file = readSnapshot(path)!;
    const t = readTail(path, file)!;
    restoreRows(c, path, file, t.file, t.segments);
    const out = { ms: performance.now() - s, cpu: o.cpu() - c0, mode: c.mode, size: c.size };
    c.stop();
    return out;
  };
  const loads: string[] = [];
  const compareLoads = (label: string) => {
    const withTail: ReturnType<typeof load>[] = [];
    const folded: ReturnType<typeof load>[] = [];
    // one load of each first, untimed: both files in the page cache (the folded one was just written, the rows'
    // file minutes before), so the wall times compare the loads, not the disk
    load(foldPath);
    load(rowsPath);
    for (let r = 0; r < o.runs; r++) {
      folded.push(load(foldPath));
      withTail.push(load(rowsPath));
      Bun.gc(true);
    }
    for (const [how, xs] of [["one rows' file + index part (folded)", folded], ["rows' file + tail + index part", withTail]] as const) {
      if (xs.some((x) => x.mode !== "indexed" || x.size !== count(cache.blocks()))) throw new Error(`${how}: not the rows, or not indexed at load`);
      loads.push(`| ${size.toLocaleString("en")} | ${label} | ${how} | ${o.median(xs.map((x) => x.ms)).toFixed(0)} ms | ${o.median(xs.map((x) => x.cpu)).toFixed(0)} ms |`);
    }
  };

  // new documents, the index kept in step as a write keeps it: 10 (the part stays), then 100 (the part written again)
  const fresh = [...o.newDocs];
  for (const [doc, d] of fresh.slice(0, 10)) cache.setDocument(doc, own(d.rows), d.vectors);
  await compare(`10 new documents (${count(cache.blocks()) - size} chunks)`);
  compareLoads(`10 new documents`);
  for (const [doc, d] of fresh.slice(10)) cache.setDocument(doc, own(d.rows), d.vectors);
  await compare(`${fresh.length} new documents (${count(cache.blocks()) - size} chunks)`);
  compareLoads(`${fresh.length} new documents`);

  // 100 documents deleted (from the rows as they were: the new ones gone again, then 100 of the file's)
  for (const doc of o.newDocs.keys()) cache.deleteDocument(doc);
  const gone = [...o.byDoc.keys()].slice(0, 100);
  for (const doc of gone) cache.deleteDocument(doc);
  await compare(`${gone.length} deleted documents (${size - count(cache.blocks())} chunks)`);
  cache.stop();
  return { saves, loads };
}
