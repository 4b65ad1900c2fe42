/**
 * Quality on real models: grounding, scoping leaks, memory recall, retrieval recall@4 and speed, on the
 * real fixture models (sh scripts/fetch-fixtures.sh), over a fixed question set on two worlds
 * (examples/thornhaven.yaml and examples/saltmarsh-quality.yaml). Seeded where the API allows (the engine
 * calls); interact replies sample at each mind's temperature, so rates carry sampling noise: read them
 * with the question count beside them.
 *
 *   bun bench/quality.ts                    # every model × embedder
 *   bun bench/quality.ts --models smol --embedders hashing,minilm --tokens 64
 *   bun bench/quality.ts --models smol --embedders hashing --reps 3 --skip retrieval,scoping,memory,speed
 *   bun bench/quality.ts --summary --seeds 5  # memory summaries alone (bench/support/qualitySummary.ts)
 */
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { createApiKey } from "../src/auth/apiKeys.ts";
import { LlmEngine } from "../src/llm/LlmEngine.ts";
import { createEmbedder } from "../src/vectors/createEmbedder.ts";
import { retrieveMemories } from "../src/npc/memory/retrieveMemories.ts";
import { retrieveLore } from "../src/retrieval/hybridSearch.ts";
import { importPack, parsePackText } from "../src/packs/importPack.ts";
import { updateSettings } from "../src/projects/settings.ts";
import { createTestApp, type TestApp } from "../test/support/testApp.ts";
import { realFixtures } from "../test/realmodel/realFixtures.ts";
import { GROUNDING, SCOPING, type Question } from "./support/qualityQuestions.ts";
import { summaryBench } from "./support/qualitySummary.ts";
import { hardProblems, inventedHeading } from "../test/realmodel/replyChecks.ts";

const fx = realFixtures();
if (!fx) {
  console.error("bench/quality: the fixture models are missing; run `sh scripts/fetch-fixtures.sh` first.");
  process.exit(2);
}
const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : def;
};
const MODELS = { smol: { name: "SmolLM2-135M-Instruct Q4_1", path: fx.smol }, gemma: { name: "Gemma 3 270M (base) Q4_K_M", path: fx.gemma } } as const;
const EMBEDDERS = { hashing: "hashing", minilm: fx.minilm } as const;
const models = arg("models", "smol,gemma").split(",") as (keyof typeof MODELS)[];
const embedders = arg("embedders", "hashing,minilm").split(",") as (keyof typeof EMBEDDERS)[];
const maxReplyTokens = Number(arg("tokens", "64"));
/** Each grounding question asked this many times (fresh players): interact samples, so more draws, less noise. */
const reps = Number(arg("reps", "1"));
/**
 * llama.cpp threads. 1 by default: its threads spin-wait for each other, so on a machine shared with other jobs
 * 2 threads on 2 cores ran 10-40× slower than 1 (measured: 60 tokens of SmolLM2 in 8.7-38.7 s vs 0.9 s, load 7-10).
 */
const threads = Number(arg("threads", "1"));
/** Parts to leave out: retrieval, scoping, memory, speed. */
const skip = new Set(arg("skip", "").split(",").filter(Boolean));
const root = join(import.meta.dir, "..");
const WORLDS = ["examples/thornhaven.yaml", "examples/saltmarsh-quality.yaml"];
const pct = (n: number, d: number) => (d ? `${Math.round((100 * n) / d)}% (${n}/${d})` : "–");

// ---------------------------------------------------------------- memory summaries alone (--summary [--seeds N])
if (process.argv.includes("--summary")) {
  const seeds = Number(arg("seeds", "5"));
  const { rows, samples } = await summaryBench(models.map((m) => MODELS[m]), seeds, threads, (s) => console.error(s));
  console.log(`\n### Memory summaries (${new Date().toISOString().slice(0, 10)}, ${cpus()[0]?.model ?? "cpu"}, threads ${threads}, load average ${loadavg()[0].toFixed(1)}, seeds 1..${seeds})\n`);
  console.log("| model | facts kept | per fact | empty summaries | degenerate | copied the example | memories | mean chars | mean tokens | mean s |");
  console.log("|---|---|---|---|---|---|---|---|---|---|");
  for (const r of rows)
    console.log(`| ${r.model} | ${pct(r.factsKept, r.factsTotal)} | ${r.facts} | ${r.empty}/${r.runs} | ${r.degenerate}/${r.runs} | ${r.copied}/${r.runs} | ${r.memories} | ${r.meanChars} | ${r.meanTokens} | ${r.meanSeconds.toFixed(1)} |`);
  console.log("\nSamples:\n" + samples.map((s) => `- ${s}`).join("\n"));
  process.exit(0);
}

interface Loaded {
  t: TestApp;
  key: Record<string, string>;
  minds: Record<string, { id: string; projectId: string; tags: string[] }>;
  docs: Record<string, string>;
}

async function world(model: string | null, embedder: string): Promise<Loaded> {
  const t = await createTestApp(
    { model: model ?? undefined, modelsDir: fx!.modelsDir, embeddingModel: embedder, threads, parallel: 1, contextSize: 2048, maxReplyTokens, generationTimeoutMs: 600_000 },
    model ? {} : { loadModel: false },
  );
  const out: Loaded = { t, key: {}, minds: {}, docs: {} };
  for (const file of WORLDS) {
    const pack = parsePackText(readFileSync(join(root, file), "utf8"), file);
    const r = importPack(t.app.ctx as any, pack, { monthlyCredits: 1_000_000 });
    out.key[r.projectId] = createApiKey(t.app.ctx as any, { projectId: r.projectId, type: "server" }).key;
    const packMinds = (pack as any).minds as { key: string; knowledgeTags: string[] }[];
    for (const m of packMinds) out.minds[m.key] = { id: r.ids.minds[m.key], projectId: r.projectId, tags: m.knowledgeTags };
    Object.assign(out.docs, r.ids.documents);
  }
  await t.app.scheduler.trigger("indexer");
  return out;
}

const interact = (w: Loaded, mind: string, player: string, text: string) =>
  w.t.call("POST", "/v1/npc/interact", { key: w.key[w.minds[mind].projectId], body: { text, entityMindId: w.minds[mind].id, playerId: player } });


// ---------------------------------------------------------------- retrieval recall@4 (no model)
const recall: Record<string, string> = {};
const embedMs: Record<string, string> = {};
const chunkRate: Record<string, string> = {};
for (const e of skip.has("retrieval") ? [] : embedders) {
  const t0 = performance.now();
  const w = await world(null, EMBEDDERS[e]);
  const indexMs = performance.now() - t0;
  const chunks = (await w.t.app.ctx.vectors.countChunks()) as number;
  let hit = 0;
  let top1 = 0;
  let wide = 0;
  for (const q of GROUNDING) {
    const m = w.minds[q.mind];
    const hits = await retrieveLore(w.t.app.ctx, { projectId: m.projectId, query: q.text, tags: m.tags, k: 4 });
    if (hits.some((h) => h.documentId === w.docs[q.doc!])) hit++;
    if (hits[0]?.documentId === w.docs[q.doc!]) top1++;
    // Harder: every tag of the project (the whole world's lore competes), top 1.
    const allTags = [...new Set(Object.values(w.minds).filter((x) => x.projectId === m.projectId).flatMap((x) => x.tags))];
    const any = await retrieveLore(w.t.app.ctx, { projectId: m.projectId, query: q.text, tags: [...allTags, "history", "quests", "general", "factions", "geography"], k: 1 });
    if (any[0]?.documentId === w.docs[q.doc!]) wide++;
  }
  recall[e] = `${pct(hit, GROUNDING.length)} | ${pct(top1, GROUNDING.length)} | ${pct(wide, GROUNDING.length)}`;
  // Embedding speed alone (the model loaded): the worlds' chunk texts, three times over.
  const texts = (await w.t.app.ctx.vectors.searchVectors({ projectId: Object.values(w.minds)[0].projectId, query: "the", tags: [...new Set(Object.values(w.minds).flatMap((x) => x.tags)), "history", "quests", "general", "factions", "geography"], n: 100 })).map((c) => c.text);
  const embedder = await createEmbedder(EMBEDDERS[e], fx.modelsDir, { threads });
  if (texts.length) {
    const e0 = performance.now();
    for (let r = 0; r < 3; r++) await embedder.embed(texts);
    chunkRate[e] = `${((3 * texts.length) / ((performance.now() - e0) / 1000)).toFixed(1)} chunks/s (${texts.length} chunks ×3)`;
  }
  await embedder.dispose?.();
  console.error(`recall@4 ${e}: ${recall[e]}`);
  embedMs[e] = `${chunks} chunks, ${(chunks / (indexMs / 1000)).toFixed(1)} chunks/s incl. app start`;
  await w.t.close();
}

// ---------------------------------------------------------------- grounding, scoping, memory per model × embedder
const rows: string[][] = [];
if (process.argv.includes("--retrieval-only")) models.length = 0;
const samples: string[] = [];
const contains = (q: Question, reply: string) => q.fact.test(reply);
for (const mk of models) {
  for (const e of embedders) {
    const w = await world(MODELS[mk].path, EMBEDDERS[e]);
    let grounded = 0;
    let empty = 0;
    let headings = 0;
    let hygiene = 0;
    let asked = 0;
    for (let rep = 0; rep < reps; rep++) {
      for (const [i, q] of GROUNDING.entries()) {
        const r = await interact(w, q.mind, `g-${rep}-${i}`, q.text);
        const reply: string = r.body?.response ?? "";
        asked++;
        const ok = contains(q, reply);
        if (ok) grounded++;
        if (!reply.trim()) empty++;
        if (inventedHeading(reply)) headings++;
        if (hardProblems(reply).length) hygiene++;
        console.error(`  ${mk}×${e} grounding ${rep + 1}.${i + 1}/${GROUNDING.length} ${ok ? "✓" : "✗"} ${JSON.stringify(reply.slice(0, 160))}`);
        if (i < 2 && rep === 0) samples.push(`${MODELS[mk].name} / ${e}: "${q.text}" → ${JSON.stringify(reply.slice(0, 160))}`);
      }
    }
    let leaks = 0;
    for (const [i, q] of (skip.has("scoping") ? [] : SCOPING).entries()) {
      const r = await interact(w, q.mind, `s-${i}`, q.text);
      if (q.fact.test(r.body?.response ?? "")) leaks++;
      console.error(`  ${mk}×${e} scoping ${i + 1}/${SCOPING.length} ${q.fact.test(r.body?.response ?? "") ? "LEAK" : "ok"}`);
    }
    // Memory: session 1 states two facts, a checkpoint summarises it; session 2 asks.
    let memRecall = "–";
    let memAnswer = "–";
    if (e === embedders[embedders.length - 1] && !skip.has("memory")) {
      const m = w.minds.garrick;
      updateSettings(w.t.app.ctx as any, m.projectId, { maxSessionLength: 3 });
      const player = `mem-${mk}-${e}`;
      for (const text of ["Hello! My name is Mara.", "I owe you 30 gold for the room; I'll pay next week.", "Goodbye for now."]) await interact(w, "garrick", player, text);
      // The checkpoint's summary runs after the reply, in the memory-summary job (not started in this app): run it.
      await w.t.app.scheduler.trigger("memory-summary");
      const mems = await retrieveMemories(w.t.app.ctx as any, { projectId: m.projectId, mindId: m.id, playerId: player, query: "What is my name? What do I owe?", enhanced: true });
      const all = mems.map((x) => x.text).join(" | ");
      memRecall = `${[/\bMara\b/.test(all), /\b30\b|thirty/i.test(all)].filter(Boolean).length}/2 facts in ${mems.length} memories`;
      const r = await interact(w, "garrick", player, "Do you remember my name?");
      memAnswer = /\bMara\b/.test(r.body?.response ?? "") ? "yes" : "no";
      samples.push(`${MODELS[mk].name} memories: ${JSON.stringify(all.slice(0, 240))}`);
      updateSettings(w.t.app.ctx as any, m.projectId, { maxSessionLength: 20 });
    }
    rows.push([MODELS[mk].name, e, pct(grounded, asked), skip.has("scoping") ? "–" : `${leaks} / ${SCOPING.length}`, String(empty), String(headings), String(hygiene), memRecall, memAnswer]);
    console.error(`done ${mk} × ${e}: ${rows.at(-1)!.join(" | ")}`);
    await w.t.close();
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
console.log(`\n### Quality on real models (${new Date().toISOString().slice(0, 10)}, ${cpus()[0]?.model ?? "cpu"}, threads ${threads}, load average ${loadavg()[0].toFixed(1)}, maxReplyTokens ${maxReplyTokens})\n`);
console.log(table(["model", "embedder", "grounding", "scoping leaks", "empty replies", "invented headings", "hygiene failures", "memory (retrieve)", "recalls name in session 2"], rows));
console.log(`\nRetrieval recall@4 of the chunk holding the answer (${GROUNDING.length} questions, each mind's own tags):\n`);
console.log(table(["embedder", "recall@4 (mind's tags)", "recall@1 (mind's tags)", "recall@1 (whole world)", "embedding speed", "indexing"], embedders.map((e) => [e, recall[e], chunkRate[e] ?? "–", embedMs[e]])));
console.log(`\nSpeed on real weights (${threads} thread(s), one conversation):\n`);
console.log(table(["model", "load", "first token cold", "first token warm (cached prefix)", "decode tok/s"], speed));
console.log("\nSamples:\n" + samples.map((s) => `- ${s}`).join("\n"));
