import * as lancedb from "@lancedb/lancedb";
import { chunkSchema, toArrowTable } from "./src/vectors/schemas.ts";
import { HashingEmbedder } from "./src/vectors/HashingEmbedder.ts";
const N = Number(process.argv[2] ?? 50000);
const db = await lancedb.connect("/tmp/lx/b10-" + Date.now());
const schema = chunkSchema(384);
const tbl = await db.createEmptyTable("c", schema);
for (const [c, cfg] of [["id", lancedb.Index.btree()], ["projectId", lancedb.Index.btree()], ["documentId", lancedb.Index.btree()], ["tags", lancedb.Index.labelList()], ["text", lancedb.Index.fts()]] as const) await tbl.createIndex(c, { config: cfg });
const e = new HashingEmbedder();
const VOC = Array.from({ length: 5000 }, (_, i) => "w" + i.toString(36) + "x");
const word = () => VOC[Math.floor(Math.pow(Math.random(), 3) * VOC.length)];
const text = () => Array.from({ length: 300 }, word).join(" ");
const mkdoc = (d: number) => { const rows = Array.from({ length: 20 }, (_, i) => ({ id: `d${d}_${i}`, projectId: "p" + (d % 5), documentId: `d${d}`, documentName: "x", chunkIndex: i, text: text(), tags: ["p" + (d % 5) + "t" + Math.floor(Math.random() * 10)], locationId: null as any, vector: null as any })); const vs = e.embedOne ? rows.map(r => e.embedOne(r.text)) : []; rows.forEach((r, i) => r.vector = vs[i]); return rows; };
let t = performance.now();
for (let b = 0; b < N / 1000; b++) { const rows = []; for (let d = 0; d < 50; d++) rows.push(...mkdoc(b * 50 + d)); await tbl.add(toArrowTable(schema, rows)!); }
console.log("bulk load", ((performance.now() - t) / 1000).toFixed(1), "s");
t = performance.now(); await tbl.optimize(); console.log("optimize full", ((performance.now() - t) / 1000).toFixed(1), "s");
let d0 = N / 20;
const T: Record<string, number[]> = {};
const tm = async (k: string, f: () => Promise<unknown>) => { const t = performance.now(); await f(); (T[k] ??= []).push(performance.now() - t); };
for (let round = 0; round < 2; round++) {
  for (let i = 0; i < 64; i++) { const rows = mkdoc(d0++); await tm("count", () => tbl.countRows(`projectId = 'p1' AND documentId = 'd${d0}'`)); await tm("add", () => tbl.add(toArrowTable(schema, rows)!)); }
  await tm("optimize64", () => tbl.optimize({ cleanupOlderThan: new Date(Date.now() - 60000) }));
}
for (let i = 0; i < 10; i++) { const d = Math.floor(Math.random() * N / 20); const rows = mkdoc(d); const where = `projectId = 'p${d % 5}' AND documentId = 'd${d}'`;
  if (i % 2) await tm("mergeInsert", () => tbl.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().whenNotMatchedBySourceDelete({ where }).execute(toArrowTable(schema, rows)!));
  else await tm("delete+add", async () => { await tbl.delete(where); await tbl.add(toArrowTable(schema, rows)!); });
}
await tm("deleteNoMatch", () => tbl.delete(`documentId = 'nope'`));
const v0 = await tbl.version(); await tbl.delete(`documentId = 'nope'`); console.log("delete no-match creates version:", (await tbl.version()) !== v0);
await tbl.optimize({ cleanupOlderThan: new Date(Date.now() - 60000) });
for (let q = 0; q < 30; q++) {
  const p = q % 5; const where = `projectId = 'p${p}' AND array_has_any(tags, ['p${p}t1', 'p${p}t2'])`;
  const qt = Array.from({ length: 4 }, word).join(" "); const v = e.embedOne(qt);
  await tm("vector", () => tbl.vectorSearch(v).distanceType("cosine").where(where).select(["id", "text", "tags", "_distance"]).limit(32).toArray());
  await tm("vector-noText", () => tbl.vectorSearch(v).distanceType("cosine").where(where).select(["id", "_distance"]).limit(32).toArray());
  await tm("fts", () => tbl.query().fullTextSearch(qt, { columns: "text" }).where(where).select(["id", "text", "tags", "_score"]).limit(32).toArray());
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(Object.fromEntries(Object.entries(T).map(([k, v]) => [k, `p50 ${med(v).toFixed(1)} ms (n=${v.length})`])));
console.log("rss MB", (process.memoryUsage().rss / 2 ** 20).toFixed(0));
