import * as lancedb from "@lancedb/lancedb";
import { chunkSchema, toArrowTable } from "./src/vectors/schemas.ts";
import { HashingEmbedder } from "./src/vectors/HashingEmbedder.ts";
const N = Number(process.argv[2] ?? 50000);
const db = await lancedb.connect("/tmp/lx/b12-" + Date.now());
const schema = chunkSchema(384);
const tbl = await db.createEmptyTable("c", schema);
for (const [c, cfg] of [["id", lancedb.Index.btree()], ["projectId", lancedb.Index.btree()], ["documentId", lancedb.Index.btree()], ["tags", lancedb.Index.labelList()], ["text", lancedb.Index.fts()]] as const) await tbl.createIndex(c, { config: cfg });
const e = new HashingEmbedder();
const VOC = Array.from({ length: 5000 }, (_, i) => "w" + i.toString(36) + "x");
const word = () => VOC[Math.floor(Math.pow(Math.random(), 3) * VOC.length)];
const text = () => Array.from({ length: 300 }, word).join(" ");
const mkdoc = (d: number) => Array.from({ length: 20 }, (_, i) => { const t = text(); return { id: `d${d}_${i}`, projectId: "p" + (d % 5), documentId: `d${d}`, documentName: "x", chunkIndex: i, text: t, tags: ["p" + (d % 5) + "t" + Math.floor(Math.random() * 10)], locationId: null as any, vector: e.embedOne(t) }; });
for (let b = 0; b < N / 1000; b++) { const rows = []; for (let d = 0; d < 50; d++) rows.push(...mkdoc(b * 50 + d)); await tbl.add(toArrowTable(schema, rows)!); }
await tbl.optimize();
console.log(JSON.stringify(await tbl.stats()));
const T: Record<string, number[]> = {};
const tm = async (k: string, f: () => Promise<unknown>) => { const t = performance.now(); await f(); (T[k] ??= []).push(performance.now() - t); };
const sel = ["id", "projectId", "documentId", "documentName", "chunkIndex", "text", "tags", "locationId", "_distance"];
for (let q = 0; q < 20; q++) {
  const p = q % 5; const v = e.embedOne(Array.from({ length: 4 }, word).join(" "));
  await tm("nofilter", () => tbl.vectorSearch(v).distanceType("cosine").select(sel).limit(32).toArray());
  await tm("project", () => tbl.vectorSearch(v).distanceType("cosine").where(`projectId = 'p${p}'`).select(sel).limit(32).toArray());
  await tm("tags", () => tbl.vectorSearch(v).distanceType("cosine").where(`array_has_any(tags, ['p${p}t1','p${p}t2'])`).select(sel).limit(32).toArray());
  await tm("both", () => tbl.vectorSearch(v).distanceType("cosine").where(`projectId = 'p${p}' AND array_has_any(tags, ['p${p}t1','p${p}t2'])`).select(sel).limit(32).toArray());
  await tm("both-l2", () => tbl.vectorSearch(v).where(`projectId = 'p${p}' AND array_has_any(tags, ['p${p}t1','p${p}t2'])`).select(sel).limit(32).toArray());
  await tm("both-dot", () => tbl.vectorSearch(v).distanceType("dot").where(`projectId = 'p${p}' AND array_has_any(tags, ['p${p}t1','p${p}t2'])`).select(sel).limit(32).toArray());
  await tm("both-idonly", () => tbl.vectorSearch(v).distanceType("cosine").where(`projectId = 'p${p}' AND array_has_any(tags, ['p${p}t1','p${p}t2'])`).select(["id", "_distance"]).limit(32).toArray());
}
if (process.argv[3] === "plan") { const v = e.embedOne("w1x w2x"); console.log(await tbl.vectorSearch(v).distanceType("cosine").where(`projectId = 'p1' AND array_has_any(tags, ['p1t1','p1t2'])`).select(sel).limit(32).analyzePlan()); }
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(Object.fromEntries(Object.entries(T).map(([k, v]) => [k, `p50 ${med(v).toFixed(1)} ms`])));
