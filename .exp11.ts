import * as lancedb from "@lancedb/lancedb";
import { chunkSchema, toArrowTable } from "./src/vectors/schemas.ts";
import { HashingEmbedder } from "./src/vectors/HashingEmbedder.ts";
const N = Number(process.argv[2] ?? 30000);
const variant = process.argv[3];
const stable = process.argv[4] === "stable";
const db = await lancedb.connect("/tmp/lx/b11-" + Date.now(), stable ? { storageOptions: { new_table_enable_stable_row_ids: "true" } } : {});
const schema = chunkSchema(384);
const tbl = await db.createEmptyTable("c", schema);
const idx: [string, lancedb.Index][] = [];
if (variant.includes("s")) idx.push(["id", lancedb.Index.btree()], ["projectId", lancedb.Index.btree()], ["documentId", lancedb.Index.btree()], ["tags", lancedb.Index.labelList()]);
if (variant.includes("f")) idx.push(["text", lancedb.Index.fts()]);
for (const [c, cfg] of idx) await tbl.createIndex(c, { config: cfg });
const e = new HashingEmbedder();
const VOC = Array.from({ length: 5000 }, (_, i) => "w" + i.toString(36) + "x");
const word = () => VOC[Math.floor(Math.pow(Math.random(), 3) * VOC.length)];
const text = () => Array.from({ length: 300 }, word).join(" ");
const mkdoc = (d: number) => Array.from({ length: 20 }, (_, i) => { const t = text(); return { id: `d${d}_${i}`, projectId: "p" + (d % 5), documentId: `d${d}`, documentName: "x", chunkIndex: i, text: t, tags: ["p" + (d % 5) + "t" + Math.floor(Math.random() * 10)], locationId: null as any, vector: e.embedOne(t) }; });
for (let b = 0; b < N / 1000; b++) { const rows = []; for (let d = 0; d < 50; d++) rows.push(...mkdoc(b * 50 + d)); await tbl.add(toArrowTable(schema, rows)!); }
let t = performance.now(); await tbl.optimize(); const full = performance.now() - t;
let d0 = N / 20; const res: number[] = [];
for (let round = 0; round < 2; round++) {
  for (let i = 0; i < 64; i++) await tbl.add(toArrowTable(schema, mkdoc(d0++))!);
  t = performance.now(); const st = await tbl.optimize({ cleanupOlderThan: new Date(Date.now() - 60000) }); res.push(performance.now() - t);
  if (round === 1) console.log(JSON.stringify(st.compaction));
}
console.log(`N=${N} variant=${variant} stable=${stable} full optimize ${(full/1000).toFixed(1)} s; optimize after 64 commits: ${res.map(x => (x/1000).toFixed(2) + " s").join(", ")}`);
