/**
 * What conditions cost a whole turn, generation aside: POST interact-preview over HTTP (retrieval, the
 * knowledge and condition gates, memories, the prompt) on two projects that differ only in conditions —
 * "plain" (no document has one) and "gated" (every document has a writer-like `when` over 200 state keys and
 * trust; about half of them hold for the benched players). Same documents, same mind, same state, same queries;
 * requests alternate between the two so the machine's noise falls on both alike.
 *   bun bench/conditionsOverhead.ts [--docs 10000] [--requests 300] [--distinct 100] [--port 0]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { App } from "../src/app/App.ts";
import { loadConfig } from "../src/config/config.ts";
import { silentLogger } from "../src/ops/logger.ts";
import { createProject } from "../src/projects/projectService.ts";
import { createTag } from "../src/lore/tags/writeTags.ts";
import { createDocument } from "../src/lore/documents/writeDocuments.ts";
import { createMind } from "../src/lore/minds/writeMinds.ts";
import { writeState } from "../src/state/stateService.ts";
import { ensureAdminToken } from "../src/admin/adminToken.ts";
import { prepareTurn } from "../src/npc/prepareTurn.ts";
import { validateInteract } from "../src/npc/validateInteract.ts";

const { values: args } = parseArgs({
  options: { docs: { type: "string", default: "10000" }, requests: { type: "string", default: "300" }, distinct: { type: "string", default: "100" } },
});
const DOCS = Number(args.docs);
const REQUESTS = Number(args.requests);
const DISTINCT = Number(args.distinct);

let seed = 11;
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))];
const VOCAB = (
  "river mill ferry toll abbey crypt bell lantern smuggler tunnel cellar harbour ship storm keeper lighthouse " +
  "merchant caravan road bridge guard gate wall tower king queen dragon gold silver salt wool ale bread stew " +
  "priest relic oath debt feud winter harvest flood marsh fog raven wolf horse forge blade shield map letter"
).split(" ");
const sentence = () => Array.from({ length: 12 }, () => pick(VOCAB)).join(" ") + ".";
const TAGS = Array.from({ length: 10 }, (_, i) => `t${i}`);

// 200 state keys as a game has them: quest stages, flags, faction standings (80 / 80 / 40).
const numbers = Array.from({ length: 80 }, (_, i) => `quest.q${i}.stage`);
const flags = Array.from({ length: 80 }, (_, i) => `flag.f${i}`);
const strings = Array.from({ length: 40 }, (_, i) => `faction.g${i}`);
const STANDINGS = ["friendly", "hostile", "neutral"];
function condition(i: number): string {
  const parts = [`${pick(numbers)} >= ${i % 4}`, pick(flags), `${pick(strings)} == "${pick(STANDINGS)}"`, `trust >= 0`, `!${pick(flags)}`, `has(${pick(numbers)})`];
  const n = 2 + (i % 3);
  const chosen = Array.from({ length: n }, () => pick(parts));
  return i % 2 ? chosen.join(" && ") : `(${chosen[0]} || ${chosen[1]}) && ${chosen.slice(2).join(" && ") || "true"}`;
}
const CONDITIONS = Array.from({ length: DISTINCT }, (_, i) => condition(i));
const worldState: Record<string, unknown> = {};
numbers.forEach((k, i) => (worldState[k] = i % 6));
flags.forEach((k, i) => (worldState[k] = i % 2 === 0));
strings.forEach((k, i) => (worldState[k] = STANDINGS[i % 3]));

const dir = mkdtempSync(join(tmpdir(), "lorehold-bench-cond-"));
const config = loadConfig({ cwd: dir, env: {}, flags: { dataDir: join(dir, "data"), modelsDir: dir, logLevel: "silent", port: 0, host: "127.0.0.1" } as any });
const app = await App.create(config, { logger: silentLogger, loadModel: false });
const ctx = app.ctx;
const admin = ensureAdminToken(app.db).adminToken;

const docsText = Array.from({ length: DOCS }, () => Array.from({ length: 5 }, sentence).join(" "));
function build(name: string, gated: boolean): { projectId: string; mindId: string } {
  const projectId = createProject(ctx, { name }).id;
  for (const t of TAGS) createTag(ctx, projectId, { name: t });
  docsText.forEach((content, d) =>
    createDocument(ctx, projectId, { name: `Doc ${d}`, content, tags: [TAGS[d % TAGS.length]], ...(gated ? { when: CONDITIONS[d % CONDITIONS.length] } : {}) }),
  );
  const mindId = createMind(ctx, projectId, { key: "keeper", entityName: "Keeper", personality: "A careful archivist.", knowledgeTags: TAGS }).id;
  writeState(ctx, projectId, null, { set: worldState });
  return { projectId, mindId };
}
const t0 = performance.now();
const plain = build("Plain", false);
const gated = build("Gated", true);
for (;;) {
  const r = (await app.scheduler.trigger("indexer"))!.lastResult as { indexed: number } | null;
  if (!r || r.indexed === 0) break;
}
await ctx.vectors.optimizeNow();
await ctx.vectors.warm([plain.projectId, gated.projectId]);
const buildSeconds = (performance.now() - t0) / 1000;

const server = app.listen();
const base = `http://127.0.0.1:${server.port}`;
async function preview(p: { projectId: string; mindId: string }, text: string, playerId: string): Promise<{ ms: number; lore: number; open: number }> {
  const s = performance.now();
  const res = await fetch(`${base}/admin/v1/projects/${p.projectId}/interact-preview`, {
    method: "POST",
    headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
    body: JSON.stringify({ text, entityMindId: p.mindId, playerId }),
  });
  const body = (await res.json()) as any;
  const ms = performance.now() - s;
  if (res.status !== 200) throw new Error(`preview ${res.status}: ${JSON.stringify(body)}`);
  const docs = (body.conditions?.documents ?? []) as { in?: boolean; included?: boolean; open?: boolean }[];
  const open = docs.length ? docs.filter((d) => d.in ?? d.included ?? d.open).length / docs.length : 1;
  return { ms, lore: (body.lore as { turn: string }[]).filter((l) => l.turn === "this").length, open };
}

const queries = Array.from({ length: REQUESTS }, () => Array.from({ length: 7 }, () => pick(VOCAB)).join(" "));
// warm-up: the first requests of each project pay for caches that every later turn shares
for (let i = 0; i < 20; i++) {
  await preview(plain, queries[i], `warm-${i}`);
  await preview(gated, queries[i], `warm-${i}`);
}
const times = { plain: [] as number[], gated: [] as number[] };
const lore = { plain: [] as number[], gated: [] as number[] };
let openShare = 0;
for (let i = 0; i < REQUESTS; i++) {
  const player = `p-${i % 50}`;
  const order = i % 2 ? ([["plain", plain], ["gated", gated]] as const) : ([["gated", gated], ["plain", plain]] as const);
  for (const [name, p] of order) {
    const r = await preview(p, queries[i], player);
    times[name].push(r.ms);
    lore[name].push(r.lore);
    if (name === "gated") openShare += r.open / REQUESTS;
  }
}
// The same turns in process: prepareTurn is everything /v1/npc/interact does before generating; the preview
// above also lists every gated document's verdict in its answer (10,000 of them here), which a turn never does.
const inProcess = { plain: [] as number[], gated: [] as number[] };
for (let i = 0; i < REQUESTS; i++) {
  const order = i % 2 ? ([["plain", plain], ["gated", gated]] as const) : ([["gated", gated], ["plain", plain]] as const);
  for (const [name, p] of order) {
    const s = performance.now();
    await prepareTurn(ctx, p.projectId, validateInteract({ text: queries[i], entityMindId: p.mindId, playerId: `p-${i % 50}` }));
    inProcess[name].push(performance.now() - s);
  }
}
await app.stop();
rmSync(dir, { recursive: true, force: true });

const row = (name: "plain" | "gated") =>
  `| ${name === "plain" ? "no conditions" : `a condition on every document (${DISTINCT} distinct)`} | ${pct(times[name], 0.5).toFixed(2)} | ${pct(times[name], 0.99).toFixed(2)} | ${(pct(times[name], 0.5) / pct(times.plain, 0.5)).toFixed(2)}× | ${(pct(times[name], 0.99) / pct(times.plain, 0.99)).toFixed(2)}× | ${(lore[name].reduce((a, b) => a + b, 0) / REQUESTS).toFixed(1)} |`;
console.log(`\n${DOCS.toLocaleString("en")} documents per project, ${REQUESTS} previews each over HTTP, alternating; built and indexed in ${buildSeconds.toFixed(0)} s`);
console.log(`machine: ${cpus()[0]?.model} × ${availableParallelism()}, load ${loadavg()[0].toFixed(1)}\n`);
console.log(`gated documents whose condition held for the benched players: ${(openShare * 100).toFixed(0)} %\n`);
console.log("| project | p50 ms | p99 ms | p50 ÷ plain | p99 ÷ plain | chunks retrieved per turn |\n|---|---:|---:|---:|---:|---:|");
console.log(row("plain"));
console.log(row("gated"));
console.log("\nprepareTurn in process (what a turn does before generating, without the preview's per-document trace):\n");
console.log("| project | p50 ms | p99 ms | p50 ÷ plain | p99 ÷ plain |\n|---|---:|---:|---:|---:|");
for (const name of ["plain", "gated"] as const)
  console.log(`| ${name} | ${pct(inProcess[name], 0.5).toFixed(2)} | ${pct(inProcess[name], 0.99).toFixed(2)} | ${(pct(inProcess[name], 0.5) / pct(inProcess.plain, 0.5)).toFixed(2)}× | ${(pct(inProcess[name], 0.99) / pct(inProcess.plain, 0.99)).toFixed(2)}× |`);
