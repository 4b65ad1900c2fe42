/**
 * Layouts of the transcript a model without a chat template reads (src/llm/transcriptTurn.ts), side by side in one
 * run on the same prompts, seeds and model: grounding, prompt echo and every other reply problem, per layout. The
 * product's own prompts are captured first (POST /v1/npc/interact on the world, the first request of each turn),
 * then each layout generates from them directly, the first sample only (no reply guard: what the model does), cut
 * as the product cuts a reply (its own label, the sentence cap, a cut at the last sentence end when the token cap
 * ended it). The naive baseline's prompts (bench/support/naiveBaseline.ts) run beside, under each layout too.
 *
 *   bun bench/transcriptLayouts.ts --worlds tuning --seeds 1,2,3 --layouts sections,knows,knowsExample
 */
import { LlamaChat, LlamaText, type LlamaChatResponse } from "node-llama-cpp";
import { PROMPT_SECTION_MARKERS, ROLE_LABEL_STOPS } from "../src/llm/cleanReply.ts";
import { join } from "node:path";
import { cpus, loadavg } from "node:os";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { sharedLlama } from "../src/llm/llamaRuntime.ts";
import { toChatHistory } from "../src/llm/toChatHistory.ts";
import { replyOpening, TranscriptChatWrapper } from "../src/llm/transcriptChatWrapper.ts";
import { BASE_LAYOUTS as LAYOUTS } from "./support/baseLayouts.ts";
import type { GenerateRequest } from "../src/llm/types.ts";
import { replyProblems, type Problem } from "../src/npc/replies/detectors.ts";
import { capSentences, cutAtLastSentence } from "../src/npc/replies/sentences.ts";
import { words } from "../src/npc/replies/wordOverlap.ts";
import { createTestApp } from "../test/support/testApp.ts";
import { TUNING } from "./support/qualityQuestions.ts";
import { CINDERVALE } from "./worlds/cindervale.questions.ts";
import { REEDMOUTH } from "./worlds/reedmouth.questions.ts";
import type { QualityWorld } from "./support/worldTypes.ts";
import { contextOf, loadWorld } from "./support/qualityWorldRun.ts";
import { HYGIENE } from "./support/qualityTables.ts";
import { promptDiff } from "./support/promptDiff.ts";
import { arg, fixturesOrExit } from "./support/benchArgs.ts";
import { indexAll } from "./support/indexAll.ts";

const fx = fixturesOrExit("transcriptLayouts");
interface Row { world?: string; layout: string; arm: "lorehold" | "naive"; part: string; mind: string; text: string; seed: number; reply: string; hit?: boolean; problems: Problem[]; words: number; ms: number }
// `--table FILE`: the table of a stored run (or of one stopped early), nothing generated.
if (process.argv.includes("--table")) {
  const stored = JSON.parse(readFileSync(arg("table", ""), "utf8")) as { meta: { world: string; layouts: Record<string, unknown> }; rows: Row[] };
  printTable(stored.rows, Object.keys(stored.meta.layouts).filter((l) => stored.rows.some((r) => r.layout === l)), `${stored.meta.world}, stored`);
  process.exit(0);
}
/** `--worlds tuning`: the three tuning worlds together; `old` the first two, `third` Reedmouth alone; `heldout` Cindervale. */
const worldName = arg("worlds", "tuning");
const worldList = ({ heldout: [CINDERVALE], old: [TUNING], third: [REEDMOUTH] } as Record<string, QualityWorld[]>)[worldName] ?? [TUNING, REEDMOUTH];
const worldTitle = worldList.map((x) => x.name).join(" + ");
const seeds = arg("seeds", "1,2,3").split(",").map(Number);
const layouts = arg("layouts", "sections,knows,knowsExample").split(",");
const parts = new Set(arg("parts", "grounding,parroting").split(","));
/** Layouts the naive baseline runs under too (it does not change with the notes' layout, only with the script form). */
const naiveLayouts = new Set(arg("naive-layouts", "sections").split(","));
const maxTokens = 64;
const root = join(import.meta.dir, "..");
const modelPath = arg("model", "gemma") === "smol" ? fx.smol : fx.gemma;

// ---------------------------------------------------------------- the product's prompts, captured
const t = await createTestApp({ model: modelPath, modelsDir: fx.modelsDir, embeddingModel: fx.minilm, threads: 1, parallel: 1, contextSize: 4096, maxReplyTokens: maxTokens });
const loadedWorlds = worldList.map((world) => ({ world, w: loadWorld(t, world, root) }));
await indexAll(t.app);
const gen = t.app.ctx.generation!;
const original = gen.generate.bind(gen);
let captured: GenerateRequest | null = null;
gen.generate = async (req) => {
  captured ??= req;
  return original({ ...req, maxTokens: 1 });
};
interface Case { world: string; part: string; mind: string; text: string; fact?: RegExp; req: GenerateRequest; naive: GenerateRequest }
const cases: Case[] = [];
const questions = loadedWorlds.flatMap(({ world, w }) => [
  ...(parts.has("grounding") ? world.grounding.map((q) => ({ w, part: "grounding", ...q })) : []),
  ...(parts.has("parroting") ? world.parroting.map((q) => ({ w, part: "parroting", fact: undefined, ...q })) : []),
  ...(parts.has("secrets") ? world.secrets.map((q) => ({ w, part: "secrets", ...q })) : []),
]);
for (const [i, q] of questions.entries()) {
  const w = q.w;
  const m = w.minds[q.mind];
  captured = null;
  await t.call("POST", "/v1/npc/interact", { key: w.key[m.projectId], body: { text: q.text, entityMindId: m.id, playerId: `layout-${i}` } });
  const nm = w.naive.get(q.mind)!;
  const naive: GenerateRequest = {
    conversationKey: `naive:${q.mind}`,
    messages: [{ role: "system", content: nm.system }, { role: "user", content: q.text }],
    maxTokens, temperature: nm.temperature, minTokens: 1, speaker: nm.name,
  };
  cases.push({ world: w.world.name, part: q.part, mind: q.mind, text: q.text, fact: q.fact, req: captured!, naive });
}
// Each mind's cases together: its system prompt stays evaluated.
cases.sort((a, b) => a.mind.localeCompare(b.mind));
if (arg("limit", "")) cases.length = Math.min(cases.length, Number(arg("limit", "")));
const contexts = new Map(cases.map((c) => [c.text, contextOf(t, loadedWorlds.find((x) => x.world.name === c.world)!.w, c.mind, c.text, null)]));
await t.close();
console.error(`captured ${cases.length} prompts`);

// ---------------------------------------------------------------- each layout on the same prompts and seeds
const llama = await sharedLlama(1);
const model = await llama.loadModel({ modelPath });
const context = await model.createContext({ contextSize: 4096, sequences: 1, threads: { ideal: 1, min: 1 } });
const sequence = context.getSequence();

if (process.argv.includes("--diff") || process.argv.includes("--with-diff")) {
  // The two prompts of each question under the first layout; `--diff` generates nothing, `--with-diff` goes on to
  // the layouts (one capture of the prompts for both: on a loaded machine the capture is most of a short run).
  mkdirSync(join(root, "bench/results"), { recursive: true });
  promptDiff(cases, new TranscriptChatWrapper(LAYOUTS[layouts[0]]), model, join(root, "bench/results", `prompt-diff-${worldName}-${layouts[0]}.json`));
  if (process.argv.includes("--diff")) process.exit(0);
}
const rows: Row[] = [];
// The engine's own stops (src/llm/SamplingControls.ts): the prompt's headings and role labels.
const STOPS = [...PROMPT_SECTION_MARKERS, ...ROLE_LABEL_STOPS].map((m) => LlamaText(m));
const ownLabel = (name: string) => new RegExp(`^\\s*${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\s*:\\s*`, "i");
/** What runs, in order: `layout:arm` pairs (`--runs`), else each layout's product arm and, under `--naive-layouts`, its naive arm. */
const runs: [string, "lorehold" | "naive"][] = arg("runs", "")
  ? arg("runs", "").split(",").map((r) => r.split(":") as [string, "lorehold" | "naive"])
  : layouts.flatMap((l) => (naiveLayouts.has(l) ? [[l, "lorehold"], [l, "naive"]] : [[l, "lorehold"]]) as [string, "lorehold" | "naive"][]);
for (const l of new Set(runs.map(([l]) => l))) if (!layouts.includes(l)) layouts.push(l);
const file = join(root, "bench/results", `transcript-layouts-${worldName}-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
mkdirSync(join(root, "bench/results"), { recursive: true });
for (const [name, arm] of runs) {
  const wrapper = new TranscriptChatWrapper(LAYOUTS[name]);
  const chat = new LlamaChat({ contextSequence: sequence, chatWrapper: wrapper, autoDisposeSequence: false });
  {
    for (const c of cases) {
      const req = arm === "lorehold" ? c.req : c.naive;
      const history = toChatHistory(req.messages, replyOpening(wrapper, req.speaker));
      if (process.argv.includes("--show") && c === cases[0]) console.error(`---- ${name} ${arm}\n${wrapper.generateContextState({ chatHistory: history }).contextText.toString().slice(-1500)}\n----`);
      for (const seed of seeds) {
        const t0 = performance.now();
        const r: LlamaChatResponse = await chat.generateResponse(history, { maxTokens, temperature: req.temperature ?? 0.7, seed, customStopTriggers: STOPS });
        const ctx = contexts.get(c.text)!;
        let reply = r.response.trim().replace(ownLabel(req.speaker ?? ""), "");
        reply = capSentences(reply, ctx.maxSentences);
        if (r.metadata.stopReason === "maxTokens") reply = cutAtLastSentence(reply);
        const row: Row = {
          world: c.world, layout: name, arm, part: c.part, mind: c.mind, text: c.text, seed, reply, problems: replyProblems(reply, ctx),
          words: words(reply).length, ms: Math.round(performance.now() - t0), ...(c.fact && c.part === "grounding" ? { hit: c.fact.test(reply) } : {}),
        };
        rows.push(row);
        console.error(`${name} ${arm} s${seed} ${c.mind} ${row.ms}ms ${row.hit === undefined ? "" : row.hit ? "✓" : "✗"} ${row.problems.map((p) => p.kind).join(",")} ${JSON.stringify(reply.slice(0, 160))}`);
      }
    }
  }
  chat.dispose();
  // Kept after each layout: a run stopped early keeps what it has.
  writeFileSync(file, JSON.stringify({ meta: { layouts: Object.fromEntries(layouts.map((l) => [l, LAYOUTS[l]])), seeds, world: worldTitle }, rows }, null, 2));
}
await context.dispose();
await model.dispose();

printTable(rows, layouts, `${worldTitle}, seeds ${seeds.join(",")}, first samples, ${arg("model", "gemma")}`);
console.error(`replies written to ${file}`);

/** The table of `rows`: per layout and arm, grounding (with its count per seed), prompt echo, hygiene by kind, length. */
function printTable(rows: Row[], layouts: string[], what: string): void {
  const pct = (n: number, d: number) => (d ? `${Math.round((100 * n) / d)}% (${n}/${d})` : "–");
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? 0;
  const seeds = [...new Set(rows.map((r) => r.seed))].sort((a, b) => a - b);
  console.log(`\n### Transcript layouts (${new Date().toISOString().slice(0, 16)}, ${cpus()[0]?.model}, 1 thread, load ${loadavg()[0].toFixed(1)}, ${what})\n`);
  const worldsSeen = [...new Set(rows.map((r) => r.world ?? ""))];
  console.log("| layout | arm | grounding | per seed | per world | prompt echo | hygiene failures | by kind | the example copied | median words |");
  console.log("|---|---|---|---|---|---|---|---|---|---|");
  for (const name of layouts)
    for (const arm of ["lorehold", "naive"] as const) {
      const mine = rows.filter((r) => r.layout === name && r.arm === arm);
      if (!mine.length) continue;
      const g = mine.filter((r) => r.part === "grounding");
      const perSeed = seeds.map((s) => g.filter((r) => r.seed === s && r.hit).length).join(" / ");
      const perWorld = worldsSeen.map((x) => `${g.filter((r) => (r.world ?? "") === x && r.hit).length}/${g.filter((r) => (r.world ?? "") === x).length}`).join(" · ");
      const kinds = new Map<string, number>();
      for (const r of mine) for (const p of r.problems) if (HYGIENE.includes(p.kind)) kinds.set(p.kind, (kinds.get(p.kind) ?? 0) + 1);
      const bad = mine.filter((r) => r.problems.some((p) => HYGIENE.includes(p.kind))).length;
      const echo = mine.filter((r) => r.problems.some((p) => p.kind === "promptEcho")).length;
      // Words of the example exchanges (src/llm/transcriptTurn.ts): a reply holding one copied the example, not the world.
      const copied = mine.filter((r) => /old well|forty(?:-\w+)? feet|give or take|miller|pepper|couldn't tell you/i.test(r.reply)).length;
      console.log(`| ${name} | ${arm} | ${pct(g.filter((r) => r.hit).length, g.length)} | ${perSeed} | ${perWorld} | ${echo}/${mine.length} | ${pct(bad, mine.length)} | ${[...kinds].map(([k, v]) => `${k} ${v}`).join(", ") || "none"} | ${copied}/${mine.length} | ${median(mine.map((r) => r.words))} |`);
    }
}
