/**
 * What draws an assistant's refusal ("I can't assist with that") or other meta talk from a real model on an NPC's
 * small-talk line: the product's prompt for the turn (prepareTurn, as /v1/npc/interact builds it), then the same
 * prompt with one part changed, each sampled over several seeds with no guard; every first sample is checked by the
 * reply detectors (src/npc/replies/detectors.ts). Tuning worlds only.
 *
 *   bun bench/refusals.ts --lines nan-wicker:0,bram:0 --seeds 4 --tokens 24 [--variants now,asName,notAssistant,noDontKnow,noNotes]
 *
 * `--lines mind:i`: the i-th parroting line of that mind in bench/support/qualityQuestions.ts.
 */
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import type { ChatMessage } from "../src/llm/types.ts";
import { createTestApp } from "../test/support/testApp.ts";
import { prepareTurn } from "../src/npc/prepareTurn.ts";
import { validateInteract } from "../src/npc/validateInteract.ts";
import { turnGuard } from "../src/npc/replies/turnGuard.ts";
import { replyProblems } from "../src/npc/replies/detectors.ts";
import { TUNING } from "./support/qualityQuestions.ts";
import { loadWorld } from "./support/qualityWorldRun.ts";
import { arg, qwenFixturesOrExit } from "./support/benchArgs.ts";
import { indexAll } from "./support/indexAll.ts";

const { fx, qwen } = qwenFixturesOrExit("refusals");
const seeds = Number(arg("seeds", "4"));
const tokens = Number(arg("tokens", "24"));
const threads = Number(arg("threads", "1"));

const IDENTITY_TAIL = /speak as yourself, in the first person/;
/** Each variant changes one thing of the turn's messages. */
const VARIANTS: Record<string, (m: ChatMessage[], name: string) => ChatMessage[]> = {
  now: (m) => m,
  // the identity line names the character instead of "yourself" (which an assistant may read as itself)
  asName: (m, name) => onSystem(m, (s) => s.replace(IDENTITY_TAIL, `speak as ${name}, in the first person`)),
  notAssistant: (m) => onSystem(m, (s) => s.replace(IDENTITY_TAIL, "speak as the character, never as an assistant, in the first person")),
  // the rules line without "say in character that you don't know"
  noDontKnow: (m) => onSystem(m, (s) => s.replace(/ If asked about anything else, say in character that you don't know\./, "")),
  // the turn's notes left out (a small-talk line needs none)
  noNotes: (m) => m.map((x, i) => (i === m.length - 1 && x.role === "user" ? { ...x, content: x.content.replace(/^\[Lore\][\s\S]*?\n\n(?=\[)/, "") } : x)),
};
function onSystem(m: ChatMessage[], f: (s: string) => string): ChatMessage[] {
  return m.map((x) => (x.role === "system" ? { ...x, content: f(x.content) } : x));
}

const variants = arg("variants", Object.keys(VARIANTS).join(",")).split(",");
const lines = arg("lines", "nan-wicker:0").split(",").map((s) => {
  const [mind, i] = s.split(":");
  return { mind, text: TUNING.parroting.filter((q) => q.mind === mind)[Number(i ?? 0)].text };
});

const t = await createTestApp({ model: qwen, modelsDir: fx.modelsDir, embeddingModel: fx.minilm, threads, parallel: 1, contextSize: 4096, maxReplyTokens: 64, generationTimeoutMs: 600_000 });
const w = loadWorld(t, TUNING, join(import.meta.dir, ".."));
await indexAll(t.app);
const counts: Record<string, { samples: number; refusal: number; meta: number; any: number }> = {};
console.error(`bench/refusals: ${cpus()[0]?.model}, threads ${threads}, load ${loadavg()[0].toFixed(1)}`);
// variant-major, line-minor, seeds innermost: each prompt is evaluated once and its seeds reuse it
for (const v of variants) {
  counts[v] = { samples: 0, refusal: 0, meta: 0, any: 0 };
  for (const l of lines) {
    const m = w.minds[l.mind];
    const p = await prepareTurn(t.app.ctx, m.projectId, validateInteract({ text: l.text, entityMindId: m.id, playerId: "refusals" }));
    const context = turnGuard(p, l.text).context;
    const messages = VARIANTS[v](p.messages, p.mind.entityName);
    for (let seed = 1; seed <= seeds; seed++) {
      const r = await t.app.ctx.generation!.generate({ conversationKey: `refusals:${l.mind}`, messages, maxTokens: tokens, temperature: p.temperature, seed, minTokens: 1 });
      const problems = replyProblems(r.text, context).map((x) => x.kind);
      const refusal = /\b(can(no|')t|unable to) (assist|help)|as an ai|how can i (assist|help) you/i.test(r.text);
      counts[v].samples++;
      if (refusal) counts[v].refusal++;
      if (problems.includes("meta")) counts[v].meta++;
      if (problems.length) counts[v].any++;
      console.error(`  ${v} ${l.mind} s${seed}: ${refusal ? "REFUSAL " : ""}${problems.join(",")} ${JSON.stringify(r.text)}`);
    }
  }
}
console.log(`\n| variant | samples | refusals | meta (detector) | any problem |\n|---|---|---|---|---|`);
for (const [v, c] of Object.entries(counts)) console.log(`| ${v} | ${c.samples} | ${c.refusal} | ${c.meta} | ${c.any} |`);
console.log(`\nload average at the end ${loadavg()[0].toFixed(1)}; lines: ${lines.map((l) => `${l.mind}: "${l.text}"`).join("; ")}`);
await t.close();
