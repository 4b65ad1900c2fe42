import * as lancedb from "@lancedb/lancedb";
import { VectorStore } from "./src/vectors/VectorStore.ts";
import { HashingEmbedder } from "./src/vectors/HashingEmbedder.ts";
const dir = "/tmp/lx/b8-" + Date.now();
const store = await VectorStore.open(dir, new HashingEmbedder());
const words = "dragon mountain ale inn king queen sword shield river forest castle thief guard merchant gold silver caravan road tunnel smuggler".split(" ");
const txt = () => Array.from({length: 300}, () => words[Math.floor(Math.random()*words.length)] + Math.floor(Math.random()*500)).join(" ");
const tbl = (store as any).active.chunks as lancedb.Table;
const T: Record<string, number> = {};
const tm = async (k: string, f: () => Promise<unknown>) => { const t = performance.now(); await f(); T[k] = (T[k] ?? 0) + performance.now() - t; };
const e = new HashingEmbedder();
for (let d = 0; d < 300; d++) {
  const rows = Array.from({ length: 20 }, (_, i) => ({ id: `d${d}_${i}`, projectId: "p" + (d % 5), documentId: `d${d}`, documentName: "x", chunkIndex: i, text: txt(), tags: ["a", "b"], locationId: null as string | null }));
  let vs: Float32Array[] = [];
  await tm("embed", async () => { vs = await e.embed(rows.map(r => r.text)); });
  await tm("count", () => tbl.countRows(`projectId = 'p1' AND documentId = 'd${d}'`));
  await tm("add", () => tbl.add(rows.map((r, i) => ({ ...r, vector: vs[i] }))));
  if (d % 32 === 31) await tm("optimize", () => tbl.optimize({ cleanupOlderThan: new Date(Date.now() - 600000) }));
}
console.log(Object.fromEntries(Object.entries(T).map(([k, v]) => [k, (v / 300).toFixed(1) + " ms/doc"])));
await store.close();
