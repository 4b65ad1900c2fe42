import { writeFileSync } from "node:fs";
import type { CacheOptions, ProjectVectorCache } from "../../../src/vectors/ProjectVectorCache.ts";

/**
 * A fixed set of vector cache searches whose hits (ids and scores, exactly) a fixture keeps as the cache answered
 * them before its search stopped allocating a query's arrays (test/vectors/searchSame.test.ts): the approximate
 * index (its lists ranked through the coarse level, and past them for a narrow filter), rows listed since its
 * compaction, deleted and replaced documents, tags past the 32nd, excluded documents, re-scoring on and off, the
 * sparse queries' column copy and the exact scan. Seeded plain JS arithmetic (no Math function a CPU may round
 * differently): the same on any CPU.
 *
 * Written again from a checkout with `bun test/vectors/support/searchScenario.ts <checkout> <fixture.json>`.
 */
type Cache = Pick<ProjectVectorCache, "setDocument" | "deleteDocument" | "search" | "indexIdle" | "mode" | "columnState">;
export type CacheClass = new (dims: number, projectId: string, opts?: CacheOptions) => Cache;
export type ScenarioHits = { label: string; hits: [string, number][] }[];

const DIMS = 48;
const TAGS = Array.from({ length: 40 }, (_, i) => `t${i}`);

function rng(seed: number) {
  let x = seed;
  return () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 4294967296) * 2 - 1;
}

const unit = (v: Float32Array) => {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  const k = 1 / Math.sqrt(s || 1);
  for (let i = 0; i < v.length; i++) v[i] *= k;
  return v;
};

function rows(d: number, n: number) {
  // tags t32…t39 get no bit in the cache (it gives 32): their rows are checked by name
  const tags = d % 5 === 0 ? [TAGS[d % TAGS.length], TAGS[(d * 7 + 3) % TAGS.length]] : [TAGS[d % TAGS.length]];
  return Array.from({ length: n }, (_, i) => ({ id: `d${d}c${i}`, projectId: "p", documentId: `d${d}`, documentName: `Doc ${d}`, chunkIndex: i, tags, locationId: i % 3 === 0 ? null : `loc${d % 4}` }));
}

/** Dense rows around 60 centres (a neural embedder's kind), or sparse ones of 6 non-zero dims (the hashing embedder's). */
function vectors(r: () => number, centres: Float32Array[], n: number, sparse: boolean): Float32Array[] {
  return Array.from({ length: n }, () => {
    const v = new Float32Array(DIMS);
    if (sparse) {
      for (let j = 0; j < 6; j++) v[Math.floor(((r() + 1) / 2) * DIMS) % DIMS] += r();
      return unit(v);
    }
    const a = centres[Math.floor(((r() + 1) / 2) * centres.length) % centres.length];
    const b = centres[Math.floor(((r() + 1) / 2) * centres.length) % centres.length];
    for (let j = 0; j < DIMS; j++) v[j] = a[j] + 0.5 * b[j] + 0.3 * r();
    return unit(v);
  });
}

async function run(Cache: CacheClass, label: string, opts: CacheOptions, docs: number, sparse: boolean, out: ScenarioHits): Promise<void> {
  const r = rng(label.length * 7919 + docs);
  const centres = Array.from({ length: 60 }, () => unit(Float32Array.from({ length: DIMS }, () => r())));
  const cache = new Cache(DIMS, "p", opts);
  for (let d = 0; d < docs; d++) cache.setDocument(`d${d}`, rows(d, 20), vectors(r, centres, 20, sparse));
  const queries = Array.from({ length: 24 }, (_, i) => {
    const [v] = vectors(r, centres, 1, sparse);
    // broad, narrow (one tag: the search reaches past the coarse level's lists), a tag without a bit
    const tags = i % 3 === 0 ? new Set(TAGS.slice(0, 12)) : i % 3 === 1 ? new Set([TAGS[(i * 5) % 32]]) : new Set([TAGS[33 + (i % 7)], TAGS[i % 32]]);
    return { v, tags, n: [1, 4, 20][i % 3], exclude: i % 4 === 0 ? (id: string) => id.endsWith("7") : undefined };
  });
  const ask = (phase: string) =>
    queries.forEach((q, i) => {
      const hits = cache.search(q.v, q.tags, q.n, q.exclude);
      out.push({ label: `${label} ${phase} #${i}`, hits: hits.map((h) => [h.id, h.score]) });
    });
  // a sparse query asks for the column copy on its first search; the index builds on its own
  cache.search(queries[0].v, queries[0].tags, 4);
  await cache.indexIdle();
  ask(`(${cache.mode}${sparse ? `, columns ${cache.columnState}` : ""})`);
  // documents deleted and replaced: their rows dead in the lists, the new ones listed since the compaction
  for (let d = 0; d < docs; d += 9) cache.deleteDocument(`d${d}`);
  for (let d = 4; d < docs; d += 13) cache.setDocument(`d${d}`, rows(d, 12), vectors(r, centres, 12, sparse));
  ask("after writes");
}

export async function searchScenario(Cache: CacheClass): Promise<ScenarioHits> {
  const out: ScenarioHits = [];
  await run(Cache, "indexed", { indexMinRows: 1000, buildRetryMs: 0 }, 200, false, out);
  await run(Cache, "indexed, no re-scoring", { indexMinRows: 1000, rescore: 0, buildRetryMs: 0 }, 150, false, out);
  await run(Cache, "sparse, column copy", { indexMinRows: 0, columnMinRows: 1000, columnSliceRows: 256 }, 150, true, out);
  await run(Cache, "exact", { indexMinRows: 0 }, 40, false, out);
  return out;
}

if (import.meta.main) {
  const [checkout, file] = process.argv.slice(2);
  const Cache = (await import(`${checkout}/src/vectors/ProjectVectorCache.ts`)).ProjectVectorCache as CacheClass;
  writeFileSync(file, `${JSON.stringify(await searchScenario(Cache))}\n`);
}
