/**
 * What the reply guard's resample buys, on a real model and the tuning worlds' small-talk lines (where echo is most
 * of the first samples' problems, bench/refusals.ts): each line's turn is prepared as /v1/npc/interact prepares it,
 * then the whole guard (src/npc/replies/generateReply.ts) runs under several policies side by side, the same seeds
 * for each, one policy after another on the same prompt (its KV cache reused). Per policy: returned replies with a
 * hygiene problem, by kind; samples per reply; and, over the turns whose first sample failed, how often the samples
 * after it failed too. Tuning worlds only (never the held-out one): Thornhaven + Saltmarsh, and Reedmouth's lines with
 * `--reedmouth`. `--lines greetings`: a player's introduction to each tuning mind by title and name, the kind of
 * line that drew Qwen's assistant voice ("Hello! How can I assist you today?") from the held-out memory script.
 *
 *   bun bench/steer.ts --seeds 1-6 --policies plain2,steer2,plain3,steer3 [--lines parroting|grounding|greetings|all] [--logits -2,-4,-8] [--reedmouth]
 */
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { createTestApp } from "../test/support/testApp.ts";
import { prepareTurn } from "../src/npc/prepareTurn.ts";
import { validateInteract } from "../src/npc/validateInteract.ts";
import { turnGuard } from "../src/npc/replies/turnGuard.ts";
import { generateReply, type GuardPolicy } from "../src/npc/replies/generateReply.ts";
import { replyProblems } from "../src/npc/replies/detectors.ts";
import { offerIn } from "../src/npc/replies/offerCut.ts";
import { splitSentences } from "../src/npc/replies/sentences.ts";
import { HYGIENE } from "./support/qualityTables.ts";
import { TUNING } from "./support/qualityQuestions.ts";
import { REEDMOUTH } from "./worlds/reedmouth.questions.ts";
import { loadWorld } from "./support/qualityWorldRun.ts";
import { arg, qwenFixturesOrExit } from "./support/benchArgs.ts";
import { indexAll } from "./support/indexAll.ts";

const { fx, qwen } = qwenFixturesOrExit("steer");
const [s0, s1] = arg("seeds", "1-4").split("-").map(Number);
const seeds = Array.from({ length: (s1 ?? s0) - s0 + 1 }, (_, i) => s0 + i);
const threads = Number(arg("threads", "1"));
const tokens = Number(arg("tokens", "64"));
const logits = arg("logits", "-4").split(",").map(Number);

/**
 * plainN: N samples, each the next seed alone; steerN: each resample steered away by the first logit (or steerN@L);
 * steerNr: that, and every resample also away from an assistant's refusal (steer.ts REFUSAL_WORDS); a last `o`
 * (steer3ro): a sample's closing offer of help cut off (offerCut.ts) rather than the sample resampled.
 */
function policyOf(name: string): GuardPolicy {
  const m = /^(plain|steer)(\d+)(r?)(o?)(?:@(-?[\d.]+))?$/.exec(name);
  if (!m) throw new Error(`unknown policy ${name}`);
  return { tries: Number(m[2]), budgetShare: 1, resampleTemperature: null, steerLogit: m[1] === "steer" ? Number(m[5] ?? logits[0]) : null, steerRefusals: m[3] === "r", cutOffers: m[4] === "o" };
}
const policies = arg("policies", "plain2,steer2,plain3,steer3").split(",");

const which = arg("lines", "parroting");
const onlyMinds = arg("minds", "");
/** `--reedmouth`: the third tuning world's lines too (its minds' keys differ from the first two's). */
const worlds = process.argv.includes("--reedmouth") ? [TUNING, REEDMOUTH] : [TUNING];
/** A newcomer's first line: a greeting by the mind's title, then the player's name, and nothing asked. */
const GREETINGS = [
  { mind: "garrick", text: "Hello, innkeeper. My name is Wenna Hale." },
  { mind: "captain-hesk", text: "Good day, Captain. My name is Orrin Vale." },
  { mind: "nan-wicker", text: "Hello, Nan. My name is Bethan Cole." },
  { mind: "brother-aldous", text: "Good morning, Brother. My name is Silas Rook." },
  { mind: "odile", text: "Hello, Harbourmaster. My name is Ysolde Penn." },
  { mind: "bram", text: "Hello, keeper. My name is Hamish Lowe." },
  { mind: "hobb", text: "Hello, ferryman. My name is Kit Sollers." },
  { mind: "nessa", text: "Good day, Mistress. My name is Aldo Fenn." },
  { mind: "garve", text: "Evening, smoker. My name is Rhona Bell." },
  { mind: "anselm", text: "Good day, Reeve. My name is Edda Marlow." },
  { mind: "ilse", text: "Hello, Mother. My name is Perrin Wade." },
  { mind: "wick", text: "Hello, Wick. My name is Dora Quill." },
];
const lines = [
  ...(which === "parroting" || which === "all" ? worlds.flatMap((w) => w.parroting).map((q) => ({ mind: q.mind, text: q.text, fact: null as RegExp | null })) : []),
  ...(which === "greetings" || which === "all" ? GREETINGS.map((q) => ({ ...q, fact: null as RegExp | null })) : []),
  ...(which === "grounding" || which === "all" ? worlds.flatMap((w) => w.grounding).map((q) => ({ mind: q.mind, text: q.text, fact: q.fact as RegExp })) : []),
].filter((l) => !onlyMinds || onlyMinds.split(",").includes(l.mind));

const t = await createTestApp({ model: qwen, modelsDir: fx.modelsDir, embeddingModel: fx.minilm, threads, parallel: 1, contextSize: 4096, maxReplyTokens: tokens, generationTimeoutMs: 900_000 });
// Greetings reach all three tuning worlds' minds; every world is loaded so each line finds its mind.
const loadedWorlds = (which === "greetings" || which === "all" ? [TUNING, REEDMOUTH] : worlds).map((x) => loadWorld(t, x, join(import.meta.dir, "..")));
const w = { minds: Object.assign({}, ...loadedWorlds.map((x) => x.minds)) as (typeof loadedWorlds)[number]["minds"] };
await indexAll(t.app);
const load0 = loadavg()[0];
console.error(`bench/steer: ${cpus()[0]?.model}, threads ${threads}, load ${load0.toFixed(1)}, seeds ${seeds.join(",")}, ${lines.length} lines`);

interface Row { turns: number; assistant: number; offerCuts: number; bad: number; kinds: Map<string, number>; samples: number; firstFailed: number; laterAllFailed: number; echoFirst: number; echoReturned: number; refused: number; grounded: number; asked: number; ms: number; cpuMs: number }
const rows = new Map<string, Row>(policies.map((p) => [p, { turns: 0, assistant: 0, offerCuts: 0, bad: 0, kinds: new Map(), samples: 0, firstFailed: 0, laterAllFailed: 0, echoFirst: 0, echoReturned: 0, refused: 0, grounded: 0, asked: 0, ms: 0, cpuMs: 0 }]));
/** An assistant's refusal or offer of help, as bench/refusals.ts counts it. */
const REFUSAL = /\b(can(no|')t|unable to) (assist|help)|as an ai|how can i (assist|help) you/i;
/** The assistant's voice anywhere in a reply: a refusal, "How can I assist you…", or any sentence that is an offer of help (offerCut.ts). */
const assistantVoice = (text: string) => REFUSAL.test(text) || splitSentences(text).some((s) => offerIn(s) !== null);
const isBad = (ks: string[]) => ks.some((k) => (HYGIENE as string[]).includes(k));

for (const l of lines) {
  const m = w.minds[l.mind];
  const p = await prepareTurn(t.app.ctx, m.projectId, validateInteract({ text: l.text, entityMindId: m.id, playerId: "steer" }));
  const guard = turnGuard(p, l.text);
  for (const seed of seeds)
    for (const name of policies) {
      const row = rows.get(name)!;
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      const { result, report } = await generateReply(t.app.ctx.generation!, {
        conversationKey: `steer:${l.mind}`, messages: p.messages, maxTokens: p.replyTokens, temperature: p.temperature, seed, minTokens: 1, speaker: p.mind.entityName,
      }, guard, policyOf(name));
      const cpu = process.cpuUsage(c0);
      row.ms += performance.now() - t0;
      row.cpuMs += (cpu.user + cpu.system) / 1000;
      // Scored as bench/quality.ts scores a returned reply; each attempt by what the guard saw of it.
      const kinds = replyProblems(result.text, guard.context).map((x) => x.kind);
      const attemptKinds = report.attempts.map((a) => a.problems.map((x) => x.kind));
      row.turns++;
      row.samples += report.attempts.length;
      if (isBad(kinds)) row.bad++;
      for (const k of kinds) if ((HYGIENE as string[]).includes(k)) row.kinds.set(k, (row.kinds.get(k) ?? 0) + 1);
      if (isBad(attemptKinds[0])) {
        row.firstFailed++;
        if (attemptKinds.slice(1).every(isBad)) row.laterAllFailed++;
      }
      if (attemptKinds[0].includes("echo")) row.echoFirst++;
      if (kinds.includes("echo")) row.echoReturned++;
      if (REFUSAL.test(result.text)) row.refused++;
      if (assistantVoice(result.text)) row.assistant++;
      if (report.attempts.some((a) => a.stoppedBy === "offer")) row.offerCuts++;
      if (l.fact) {
        row.asked++;
        if (l.fact.test(result.text)) row.grounded++;
      }
      const trail = report.attempts.map((a) => `${a.problems.map((x) => x.kind).join("+") || "ok"}${a.stoppedBy === "offer" ? "(offer cut)" : ""}${a.avoided ? `(avoid ${a.avoided.length})` : ""}`).join(" → ");
      console.error(`  ${name} ${l.mind} s${seed}: ${trail}: ${kinds.join(",") || "clean"} ${JSON.stringify(result.text.slice(0, 160))}`);
    }
}

const pct = (a: number, b: number) => `${b ? Math.round((100 * a) / b) : 0} % (${a}/${b})`;
console.log(`\n| policy | returned in an assistant's voice (refusal or offer) | samples whose offer was cut | returned with a hygiene problem | by kind | echo: first sample / returned | refusals returned | turns whose first sample failed: every later one failed too | samples per reply | grounded | CPU s | wall s |`);
console.log(`|---|---|---|---|---|---|---|---|---|---|---|---|`);
for (const [name, r] of rows)
  console.log(`| ${name} | ${pct(r.assistant, r.turns)} | ${r.offerCuts} | ${pct(r.bad, r.turns)} | ${[...r.kinds].map(([k, n]) => `${k} ${n}`).join(", ") || "–"} | ${r.echoFirst} / ${r.echoReturned} | ${r.refused} | ${pct(r.laterAllFailed, r.firstFailed)} | ${(r.samples / Math.max(1, r.turns)).toFixed(2)} | ${r.asked ? pct(r.grounded, r.asked) : "–"} | ${(r.cpuMs / 1000).toFixed(0)} | ${(r.ms / 1000).toFixed(0)} |`);
console.log(`\nQwen2.5-Coder-0.5B-Instruct Q4_K_M, ${threads} thread(s), ${tokens}-token replies, seeds ${seeds.join(",")}, lines: ${which}; load average ${load0.toFixed(1)} → ${loadavg()[0].toFixed(1)}; ${cpus()[0]?.model}`);
await t.close();
