import type { ChunkRow } from "../../src/vectors/rows.ts";

/**
 * The world of test/vectors/fixtures/snapshot-before-blocks.vc, a snapshot file written by the cache before it kept a
 * document's names, locations, tags and ids once a block (and before a column copy could hold a block's codes): the
 * same rows and queries rebuilt here, seeded, so a test can load that file and compare what it answers.
 * Rows vary in everything a block now keeps once: names, locations, tag sets (36 tags: past the 32 bits), chunk order.
 * How the two fixture files were made, with the code of main 5ef1fbc: a ProjectVectorCache of these documents
 * ({ indexMinRows: 0, columnMinRows: 1 }), one search with the first query and `indexIdle()`, its blocks written by
 * writeSnapshotTmp (gen 1, embedderId "fixture-16", columns as its extras() said), then `search` of every query
 * (new Set(q.tags), q.n) saved as JSON.
 */
export function oldWorld() {
  const dims = 16;
  let x = 12345;
  const rand = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 4294967296;
  const tags = Array.from({ length: 36 }, (_, i) => `tag${i}`);
  const docs: { documentId: string; rows: Omit<ChunkRow, "text">[]; vectors: Float32Array[] }[] = [];
  for (let d = 0; d < 12; d++) {
    const n = 1 + (d % 5) * 3;
    const mixed = d % 3 === 0;
    const order = Array.from({ length: n }, (_, i) => i);
    if (d % 4 === 1) order.reverse();
    const rows = order.map((ci, i) => ({
      id: `chunk_${d}_${ci}`,
      projectId: "p",
      documentId: `doc${d}`,
      documentName: mixed && i % 2 ? `Other name ${d}` : `Document ${d}`,
      chunkIndex: ci,
      tags: mixed ? [tags[(d * 7 + i) % tags.length]] : [tags[(d * 3) % tags.length], tags[(d * 3 + 33) % tags.length]],
      locationId: d % 2 ? null : mixed && i % 3 === 0 ? `loc_${i}` : `loc_${d}`,
    }));
    const vectors = rows.map(() => {
      const v = new Float32Array(dims);
      for (let k = 0; k < 4; k++) v[Math.floor(rand() * dims)] += rand() * 2 - 1;
      return v;
    });
    docs.push({ documentId: `doc${d}`, rows, vectors });
  }
  const queries = Array.from({ length: 12 }, (_, q) => {
    const v = new Float32Array(dims);
    // sparse and dense queries both: a dense one is scored row by row over the column copy's codes
    const nz = q % 3 === 0 ? dims : 3;
    for (let k = 0; k < nz; k++) v[q % 3 === 0 ? k : Math.floor(rand() * dims)] += rand() * 2 - 1;
    return { v, tags: tags.filter(() => rand() < 0.4), n: 1 + (q % 7) * 3 };
  });
  return { dims, docs, queries };
}
