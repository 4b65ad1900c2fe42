// The API's lists at 1,000 minds and 50,000 documents: each list request over HTTP (in process, app.handle),
// its time and body size, median of a few runs; with --before, beside GET /lore/minds, what its lore filters cost before
// (a query per mind, as readMinds ran them) in the same run. Usage: bun bench/big-lists.ts [--minds 1000] [--documents 50000] [--runs 5] [--before]
import { cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { createTestApp } from "../test/support/testApp.ts";
import { bigProject } from "./support/bigProject.ts";
import { readMinds } from "../src/lore/minds/readMinds.ts";
import { documentsTagged } from "../src/lore/documents/documentListStore.ts";

const { values: args } = parseArgs({ options: { before: { type: "boolean", default: false }, minds: { type: "string", default: "1000" }, documents: { type: "string", default: "50000" }, runs: { type: "string", default: "5" } } });
const t = await createTestApp({}, { loadModel: false });
const g0 = performance.now();
const big = bigProject(t.app.ctx as never, { minds: Number(args.minds), documents: Number(args.documents) });
console.error(`generated in ${((performance.now() - g0) / 1000).toFixed(1)} s`);
const admin = t.app.config.adminToken ?? (t as unknown as { adminToken: string }).adminToken;
const lists: [string, string, "editor" | "admin"][] = [
  ["GET /v1/lore/minds (unpaginated, streamed)", "/v1/lore/minds", "editor"],
  ["GET /v1/lore/documents (a page of 50)", "/v1/lore/documents?limit=50&offset=25000", "editor"],
  ["GET /v1/lore/documents?search= (a page)", "/v1/lore/documents?search=ferryman&limit=50", "editor"],
];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const rssStart = process.memoryUsage().rss;
console.log(`\n### API lists at scale (${new Date().toISOString().slice(0, 10)}, ${cpus()[0]?.model ?? "cpu"}, ${args.minds} minds, ${args.documents} documents, load average ${loadavg()[0].toFixed(1)}, median of ${args.runs})\n`);
console.log("| request | ms | body KB |");
console.log("|---|---|---|");
for (const [label, path, who] of lists) {
  const ms: number[] = [];
  let bytes = 0;
  for (let r = 0; r < Number(args.runs); r++) {
    const t0 = performance.now();
    const res = await t.app.handle(new Request(`http://local${path}`, { headers: { authorization: `Bearer ${who === "editor" ? big.editor : admin}` } }));
    const body = await res.arrayBuffer();
    ms.push(performance.now() - t0);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${new TextDecoder().decode(body).slice(0, 200)}`);
    bytes = body.byteLength;
  }
  console.log(`| ${label} | ${median(ms).toFixed(1)} | ${(bytes / 1024).toFixed(0)} |`);
}
// `--before`: slow without ANALYZE statistics (SQLite then plans each query from the project's documents).
if (args.before) {
  const ms: number[] = [];
  for (let r = 0; r < Number(args.runs); r++) {
    const t0 = performance.now();
    for (const m of readMinds(t.app.ctx as never, big.projectId, { onlyWithTags: true })) documentsTagged(t.app.ctx.db, big.projectId, m.knowledgeTags);
    ms.push(performance.now() - t0);
  }
  console.log(`| before: GET /v1/lore/minds's filters as a query per mind (in process, no HTTP) | ${median(ms).toFixed(1)} | – |`);
}
console.error(`rss ${(rssStart / 1e6).toFixed(0)} → ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB`);
await t.close();
