/**
 * Quality on real models, Lorehold beside a naive baseline on the same model and settings (the mind's persona and
 * all its in-scope documents pasted into one system prompt, bench/support/naiveBaseline.ts), on two sets of worlds:
 * the tuning worlds (examples/thornhaven.yaml + examples/saltmarsh-quality.yaml, and examples/reedmouth-quality.yaml),
 * where changes are tried, and the held-out world (bench/worlds/cindervale.yaml), written before any tuning and never
 * tuned on: its figures are the result. Per world: grounding (several seeds per question, with the spread), secrets told, scoping leaks, parroting
 * and every other reply problem (src/npc/replies/detectors.ts), length, first-token time, short conversations and a
 * 3-fact memory script. Every reply goes to a JSON file under bench/results/ for a person to read.
 *
 *   bun bench/quality.ts --models qwen --embedders minilm --seeds 2          # both world sets
 *   bun bench/quality.ts --models qwen --embedders minilm --worlds tuning --seeds 1 --skip retrieval,speed,memory
 *   bun bench/quality.ts --models qwen --embedders minilm --worlds third --seeds 1,2,3 --by-mind   # Reedmouth alone (`old`: the first two)
 *   bun bench/quality.ts --models qwen,smol,gemma --worlds heldout --stream  # replies over SSE (client first token)
 *   bun bench/quality.ts --rescore --merge A.json B.json   # one table of several runs' replies (parts or arms run apart)
 *   bun bench/quality.ts --summary --seeds 5  # memory summaries alone (bench/support/qualitySummary.ts)
 *   bun bench/quality.ts --worlds tuning --temperature 0.4 --out tone/t04  # minds with no temperature at 0.4, both arms; files under bench/results/tone/t04
 *   bun bench/quality.ts --models smol --worlds tuning --remote  # the model served by a real llama-server behind generation = "remote"
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { LlmEngine } from "../src/llm/LlmEngine.ts";
import { createEmbedder } from "../src/vectors/createEmbedder.ts";
import { retrieveLore } from "../src/retrieval/hybridSearch.ts";
import { knowledgeTagNames } from "../src/lore/minds/mindStore.ts";
import { createTestApp, type TestApp } from "../test/support/testApp.ts";
import { qwenFixture } from "../test/realmodel/realFixtures.ts";
import { TUNING } from "./support/qualityQuestions.ts";
import { CINDERVALE } from "./worlds/cindervale.questions.ts";
import { REEDMOUTH } from "./worlds/reedmouth.questions.ts";
import { summaryBench } from "./support/qualitySummary.ts";
import { SeededTurns } from "./support/benchTurns.ts";
import { loadWorld, runWorld } from "./support/qualityWorldRun.ts";
import { worldTable } from "./support/qualityTables.ts";
import { rescore } from "./support/rescore.ts";
import type { QualityWorld } from "./support/worldTypes.ts";
import { arg, fixturesOrExit } from "./support/benchArgs.ts";
import { indexAll } from "./support/indexAll.ts";
import { llamaServerBinary, startLlamaServer, type LlamaServer } from "../test/support/llamaServer.ts";

const fx = fixturesOrExit("quality");
const qwen = qwenFixture();
const MODELS = {
  qwen: { name: "Qwen2.5-Coder-0.5B-Instruct Q4_K_M", path: qwen ?? "" },
  smol: { name: "SmolLM2-135M-Instruct Q4_1", path: fx.smol },
  gemma: { name: "Gemma 3 270M (base) Q4_K_M", path: fx.gemma },
} as const;
const EMBEDDERS = { hashing: "hashing", minilm: fx.minilm } as const;
const models = arg("models", qwen ? "qwen,smol,gemma" : "smol,gemma").split(",") as (keyof typeof MODELS)[];
if (models.includes("qwen") && !qwen) {
  console.error("bench/quality: Qwen2.5-Coder-0.5B-Instruct is missing; run `sh scripts/fetch-fixtures.sh` first.");
  process.exit(2);
}
const embedders = arg("embedders", "hashing,minilm").split(",") as (keyof typeof EMBEDDERS)[];
const maxReplyTokens = Number(arg("tokens", "64"));
/** Context per sequence, for both arms: 4096 so the naive baseline's pasted lore fits (Thornhaven's captain: ~2,500 tokens). */
const contextSize = Number(arg("context", "4096"));
/**
 * llama.cpp threads. 1 by default: its threads spin-wait for each other, so on a machine shared with other jobs
 * 2 threads on 2 cores ran 10-40× slower than 1 (measured: 60 tokens of SmolLM2 in 8.7-38.7 s vs 0.9 s, load 7-10).
 */
const threads = Number(arg("threads", "1"));
/** Parts to leave out: retrieval, grounding, secrets, parroting, scoping, conversation, memory, speed. */
const skip = new Set(arg("skip", "").split(",").filter(Boolean));
const root = join(import.meta.dir, "..");
const pct = (n: number, d: number) => (d ? `${Math.round((100 * n) / d)}% (${n}/${d})` : "–");

// ---------------------------------------------------------------- memory summaries alone (--summary [--seeds N])
if (process.argv.includes("--summary")) {
  const seeds = Number(arg("seeds", "5"));
  const { rows, samples } = await summaryBench(models.map((m) => MODELS[m]), seeds, threads, (s) => console.error(s));
  console.log(`\n### Memory summaries (${new Date().toISOString().slice(0, 10)}, ${cpus()[0]?.model ?? "cpu"}, threads ${threads}, load average ${loadavg()[0].toFixed(1)}, seeds 1..${seeds})\n`);
  console.log("| model | facts kept | per fact | empty summaries | degenerate | copied the example | memories | restated | third person | mean chars | mean tokens | mean s |");
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|");
  for (const r of rows)
    console.log(`| ${r.model} | ${pct(r.factsKept, r.factsTotal)} | ${r.facts} | ${r.empty}/${r.runs} | ${r.degenerate}/${r.runs} | ${r.copied}/${r.runs} | ${r.memories} | ${r.restated} | ${r.thirdPerson}/${r.memories} | ${r.meanChars} | ${r.meanTokens} | ${r.meanSeconds.toFixed(1)} |`);
  console.log("\nSamples:\n" + samples.map((s) => `- ${s}`).join("\n"));
  process.exit(0);
}

/** `--worlds` names: `tuning` is all three tuning worlds; `old` the first two (Thornhaven + Saltmarsh), `third` Reedmouth alone. */
const WORLDS: Record<string, QualityWorld[]> = { tuning: [TUNING, REEDMOUTH], old: [TUNING], third: [REEDMOUTH], heldout: [CINDERVALE] };
if (process.argv.includes("--rescore")) {
  const files = process.argv.slice(process.argv.indexOf("--rescore") + 1).filter((f) => !f.startsWith("--"));
  console.log(await rescore(files, [TUNING, REEDMOUTH, CINDERVALE], root, process.argv.includes("--merge")));
  process.exit(0);
}
const worlds = [...new Set(arg("worlds", "tuning,heldout").split(",").filter(Boolean).flatMap((k) => WORLDS[k] ?? (console.error(`unknown world ${k}`), process.exit(2))))];
/** Seeds per question: `--seeds 2` is 1,2; `--seeds 3,7` those. Every generation of a turn is seeded from it (benchTurns.ts). */
const seedArg = arg("seeds", "2");
const seeds = seedArg.includes(",") ? [...new Set(seedArg.split(",").filter(Boolean).map(Number))] : Array.from({ length: Number(seedArg) }, (_, i) => i + 1);
const stream = process.argv.includes("--stream");
/** `--no-naive`: the product alone (while iterating; the final table has both). */
const withNaive = !process.argv.includes("--no-naive");
/** `--naive-only`: the baseline alone (the parts it has: grounding, secrets, parroting), to merge with a product run (`--rescore --merge`). */
const naiveOnly = process.argv.includes("--naive-only");
if (naiveOnly) for (const part of ["scoping", "conversation", "memory"]) skip.add(part);

/** `--by-mind`: each mind's single-line turns together (a mind switch re-evaluates its prompt: minutes on a loaded machine). */
const byMind = process.argv.includes("--by-mind");
/** `--seeds-together` (with `--by-mind`): a question's seeds in a row, its prompt evaluated once (one arm per process). */
const seedsTogether = process.argv.includes("--seeds-together");
/** `--minds a,b`: only these minds' grounding, secrets and parroting turns (with `--seeds 6`: many draws of a few prompts). */
const onlyMinds = arg("minds", "") ? arg("minds", "").split(",") : undefined;
/**
 * `--quantity-arms`: the product's single-line turns where the guard's number check found a made-up number are run
 * again without it (same seed, same prompt), for the paired arm without the check (qualityWorldRun.ts `quantityArms`;
 * bench/quantityCheck.ts reads both arms from the result file).
 */
const quantityArms = process.argv.includes("--quantity-arms");
/** `--attribution-arms`: the same for the guard's attribution check (a fact told of the wrong person, attribution.ts). */
const attributionArms = process.argv.includes("--attribution-arms");
/** `--recital-arms`: the same for the guard's recital check (GuardPolicy.checkRecitals, on in this run's first arm); `bun bench/quantityCheck.ts --check recital` reads both. */
const recitalArms = process.argv.includes("--recital-arms");
const withoutKey = recitalArms ? "withoutRecitalCheck" : attributionArms ? "withoutAttributionCheck" : "withoutQuantityCheck";
const pairArms = quantityArms || recitalArms || attributionArms;
/** `--kv-cache f16|q8_0|q4_0`: llama.cpp's KV cache type for both arms (config `kvCacheType`). */
const kvCacheType = arg("kv-cache", "f16") as "f16" | "q8_0" | "q4_0";
/**
 * `--kv-snapshots off`: no mind prompt warmed in the background nor restored from disk (config `kvSnapshots`). A
 * warm-up evaluates a prompt in steps that fall where turns interrupt it, and llama.cpp's logits move with where a
 * prompt's evaluation was split, so the same tokens and seed can give another reply from one run to the next; off,
 * a run's replies follow from its prompts and seeds alone (bench/evalSplit.ts).
 */
const kvSnapshots = arg("kv-snapshots", "on") as "on" | "off";
/** `--temperature T`: what minds that set no temperature sample at, in both arms (a candidate for the product's default). */
const defaultTemperature = arg("temperature", "") ? Number(arg("temperature", "")) : undefined;

/**
 * `--remote`: each model served by a real llama-server (the binary scripts/ci/backends.sh builds; one slot of the same
 * context, the same threads) behind generation = "remote", the product's and the naive arm's generations alike.
 */
const remote = process.argv.includes("--remote");
const servers = new Map<TestApp, LlamaServer>();

async function appFor(model: string | null, embedder: string): Promise<TestApp> {
  if (remote && model) {
    const binary = llamaServerBinary();
    if (!binary) {
      console.error("bench/quality --remote: no llama-server binary; run scripts/ci/backends.sh first.");
      process.exit(2);
    }
    const server = await startLlamaServer({ binary, model, parallel: 1, slotContext: contextSize, threads });
    const backend = { url: server.url, model: "m", apiKey: null, maxConcurrent: 1, weight: 1, timeoutMs: 600_000, kind: "llama-server" as const };
    const t = await createTestApp({ generation: "remote", backends: [backend], modelsDir: fx!.modelsDir, embeddingModel: embedder, threads, contextSize, maxReplyTokens, generationTimeoutMs: 600_000 });
    servers.set(t, server);
    return t;
  }
  return createTestApp(
    { model: model ?? undefined, modelsDir: fx!.modelsDir, embeddingModel: embedder, threads, parallel: 1, contextSize, maxReplyTokens, generationTimeoutMs: 600_000, kvCacheType, kvSnapshots },
    model ? {} : { loadModel: false },
  );
}

// ---------------------------------------------------------------- retrieval recall@4 (no model)
const recall: Record<string, string> = {};
const embedMs: Record<string, string> = {};
const chunkRate: Record<string, string> = {};
for (const e of skip.has("retrieval") ? [] : embedders) {
  const t0 = performance.now();
  const t = await appFor(null, EMBEDDERS[e]);
  const ws = worlds.map((world) => loadWorld(t, world, root));
  await indexAll(t.app);
  const indexMs = performance.now() - t0;
  const chunks = (await t.app.ctx.vectors.countChunks()) as number;
  let [hit, top1, total] = [0, 0, 0];
  for (const w of ws) {
    const docIds = await docIdsOf(t, w);
    for (const q of w.world.grounding) {
      const m = w.minds[q.mind];
      const tags = knowledgeTagNames(t.app.ctx.db, m.id);
      const hits = await retrieveLore(t.app.ctx, { projectId: m.projectId, query: q.text, tags, k: 4 });
      total++;
      if (hits.some((h) => h.documentId === docIds[q.doc!])) hit++;
      if (hits[0]?.documentId === docIds[q.doc!]) top1++;
    }
  }
  recall[e] = `${pct(hit, total)} | ${pct(top1, total)}`;
  const texts = (await t.app.ctx.db.query<{ content: string }, []>("SELECT content FROM chunks LIMIT 100").all()).map((r) => r.content);
  const embedder = await createEmbedder(EMBEDDERS[e], fx.modelsDir, { threads });
  if (texts.length) {
    const e0 = performance.now();
    for (let r = 0; r < 3; r++) await embedder.embed(texts);
    chunkRate[e] = `${((3 * texts.length) / ((performance.now() - e0) / 1000)).toFixed(1)} chunks/s (${texts.length} chunks ×3)`;
  }
  await embedder.dispose?.();
  console.error(`recall@4 ${e}: ${recall[e]}`);
  embedMs[e] = `${chunks} chunks, ${(chunks / (indexMs / 1000)).toFixed(1)} chunks/s incl. app start`;
  await t.close();
}

async function docIdsOf(t: TestApp, w: ReturnType<typeof loadWorld>): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const projectId of Object.keys(w.key))
    for (const r of t.app.ctx.db.query<{ id: string; key: string }, [string]>("SELECT id, key FROM documents WHERE project_id = ?").all(projectId)) ids[r.key] = r.id;
  return ids;
}

// ---------------------------------------------------------------- the worlds per model × embedder, Lorehold beside the naive baseline
const worldTables: string[] = [];
if (process.argv.includes("--retrieval-only")) models.length = 0;
for (const mk of models) {
  for (const e of embedders) {
    const t = await appFor(MODELS[mk].path, EMBEDDERS[e]);
    const turns = new SeededTurns(t.app.ctx.generation!);
    const loaded = worlds.map((world) => loadWorld(t, world, root, defaultTemperature));
    await indexAll(t.app);
    const out: Record<string, unknown> = {};
    const meta = { date: new Date().toISOString(), commit: gitCommit(), cpu: cpus()[0]?.model, threads, loadAverage: [loadavg()[0]], model: MODELS[mk].name, embedder: e, maxReplyTokens, contextSize, seeds, stream, kvCacheType, kvSnapshots, defaultTemperature: defaultTemperature ?? "product default", generation: remote ? "remote llama-server" : "local" };
    mkdirSync(join(root, "bench/results", arg("out", "")), { recursive: true });
    const file = join(root, "bench/results", arg("out", ""), `quality-${mk}-${e}-${kvCacheType}${remote ? "-remote" : ""}-${meta.date.replace(/[:.]/g, "-")}.json`);
    for (const w of loaded) {
      console.error(`== ${MODELS[mk].name} × ${e}: ${w.world.name}`);
      const save = () => writeFileSync(file, JSON.stringify({ meta, worlds: out }, (_k, v) => (v instanceof RegExp ? String(v) : v), 2));
      const onRecord = (records: unknown[], without: unknown[]) => {
        out[w.world.name] = { memory: null, records, ...(pairArms ? { [withoutKey]: without } : {}) };
        save();
      };
      const run = await runWorld(t, w, turns, { seeds, maxReplyTokens, stream, skip, naive: withNaive, product: !naiveOnly, byMind, seedsTogether, minds: onlyMinds, log: (s) => console.error(s), onRecord, quantityArms, attributionArms, recitalArms });
      const { records, memory } = run;
      out[w.world.name] = { memory, records, ...(pairArms ? { [withoutKey]: run.without } : {}) };
      worldTables.push(`#### ${w.world.name}: ${MODELS[mk].name}, ${e} embedder\n\n${worldTable(records)}\n\nMemory (3 facts said, checkpoint, asked in session 2; the script once per seed): ${memory ?? "–"}`);
      // Written after each world (a long run keeps what it has); the load average as it went.
      meta.loadAverage.push(loadavg()[0]);
      save();
      console.error(`replies written to ${file}`);
    }
    await t.close();
    await servers.get(t)?.stop();
  }
}

function gitCommit(): string {
  try {
    return Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: root }).stdout.toString().trim();
  } catch {
    return "unknown";
  }
}

// ---------------------------------------------------------------- speed on real weights
const speed: string[][] = [];
for (const mk of skip.has("speed") ? [] : models) {
  const t0 = performance.now();
  const llm = await LlmEngine.load({ modelPath: MODELS[mk].path, threads, parallel: 2, contextSize: 2048 });
  const loadMs = performance.now() - t0;
  const sys = readFileSync(join(root, "examples/thornhaven.yaml"), "utf8").slice(3000, 5200);
  const messages = [
    { role: "system" as const, content: `You are Garrick Thorne, innkeeper. Stay in character.\n${sys}` },
    { role: "user" as const, content: "Tell me about your inn." },
  ];
  const cold = await llm.generate({ conversationKey: "speed", messages, maxTokens: 64, minTokens: 64, seed: 1 });
  const warmMessages = [...messages, { role: "assistant" as const, content: cold.text }, { role: "user" as const, content: "And the porter?" }];
  const w0 = performance.now();
  const warm = await llm.generate({ conversationKey: "speed", messages: warmMessages, maxTokens: 64, minTokens: 64, seed: 2 });
  const warmMs = performance.now() - w0;
  const decodeTps = (warm.completionTokens - 1) / ((warmMs - warm.timeToFirstTokenMs) / 1000);
  speed.push([
    MODELS[mk].name,
    `${(loadMs / 1000).toFixed(1)} s`,
    `${Math.round(cold.timeToFirstTokenMs)} ms (${cold.promptTokens} prompt tokens)`,
    `${Math.round(warm.timeToFirstTokenMs)} ms (${warm.evaluatedPromptTokens} new tokens)`,
    decodeTps.toFixed(1),
  ]);
  await llm.dispose();
}

const table = (head: string[], body: string[][]) => [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...body.map((r) => `| ${r.join(" | ")} |`)].join("\n");
console.log(`\n### Quality on real models (${new Date().toISOString().slice(0, 10)}, ${cpus()[0]?.model ?? "cpu"}, threads ${threads}, load average ${loadavg()[0].toFixed(1)}, maxReplyTokens ${maxReplyTokens}, context ${contextSize}, KV cache ${kvCacheType}, seeds ${seeds.join(",")}${stream ? ", SSE" : ""})\n`);
console.log(worldTables.join("\n\n"));
console.log(`\nRetrieval recall of the chunk holding the answer (the grounding questions, each mind's own tags):\n`);
console.log(table(["embedder", "recall@4", "recall@1", "embedding speed", "indexing"], embedders.filter((e) => recall[e]).map((e) => [e, recall[e], chunkRate[e] ?? "–", embedMs[e]])));
console.log(`\nSpeed on real weights (${threads} thread(s), one conversation):\n`);
console.log(table(["model", "load", "first token cold", "first token warm (cached prefix)", "decode tok/s"], speed));
