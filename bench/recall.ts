/**
 * Is a stored memory recalled in the player's next conversation? On the tuning worlds' memory script (and a
 * hand-made one): the script's lines through POST /v1/npc/interact, the session checkpointed and summarised (the
 * memory-summary job), then each recall line of a NEW session prepared as the product prepares it (prepareTurn):
 * where the memories sit in the prompt and in what words, then first samples (no guard) of that prompt under each
 * variant over several seeds, scored by the script's recall pattern. Tuning worlds only, never the held-out one.
 *
 *   bun bench/recall.ts --seeds 6 [--variants now,...] [--scripts garrick,odile] [--tokens 40]
 *   bun bench/recall.ts --guard --seeds 4 [--asks 0,1]   # the whole guard on the prompt as it is, its steering told the
 *                                                          player's memories (after) or not (before), same seeds
 */
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import type { ChatMessage } from "../src/llm/types.ts";
import { createTestApp } from "../test/support/testApp.ts";
import { prepareTurn } from "../src/npc/prepareTurn.ts";
import { validateInteract } from "../src/npc/validateInteract.ts";
import { turnGuard } from "../src/npc/replies/turnGuard.ts";
import { replyProblems } from "../src/npc/replies/detectors.ts";
import { generateReply, GUARD_POLICY } from "../src/npc/replies/generateReply.ts";
import { updateSettings } from "../src/projects/settings.ts";
import { scopeMemories } from "../src/npc/memory/memoryRows.ts";
import { TUNING } from "./support/qualityQuestions.ts";
import { loadWorld } from "./support/qualityWorldRun.ts";
import { interactJson, SeededTurns } from "./support/benchTurns.ts";
import { arg, qwenFixturesOrExit } from "./support/benchArgs.ts";
import { indexAll } from "./support/indexAll.ts";

const { fx, qwen } = qwenFixturesOrExit("recall");
const seeds = Number(arg("seeds", "6"));
const tokens = Number(arg("tokens", "40"));
const threads = Number(arg("threads", "1"));

interface Script {
  mind: string;
  lines: string[];
  asks: { text: string; recalls: RegExp }[];
}
/** The tuning world's memory script, and one written here (a second mind, other facts, other ways of asking). */
const SCRIPTS: Record<string, Script> = {
  garrick: {
    mind: TUNING.memory!.mind,
    lines: TUNING.memory!.lines,
    asks: [
      { text: TUNING.memory!.ask, recalls: TUNING.memory!.recalls },
      { text: "Evening again. Do you remember me?", recalls: /\bMara\b/ },
      { text: "How much do I owe you?", recalls: /\b30\b|thirty/i },
    ],
  },
  odile: {
    mind: "odile",
    lines: ["Good morning. I'm Corwin Vale, captain of the barge Heron.", "I lost my brass compass on your quay last night.", "My wife Tilda sends her regards. Good day."],
    asks: [
      { text: "Morning! You know who I am, don't you?", recalls: /\bCorwin\b/ },
      { text: "What is my name?", recalls: /\bCorwin\b/ },
      { text: "Did anyone find what I lost?", recalls: /compass/i },
    ],
  },
};

const MEMORY_BLOCK = /\[You remember about this player\]\n((?:- .*\n?)+)/;
/** Each variant changes one thing of the new session's prompt. */
const VARIANTS: Record<string, (m: ChatMessage[]) => ChatMessage[]> = {
  now: (m) => m,
  // the rules line names what the mind remembers beside the [Lore] notes (it says "anything else: you don't know")
  rules: (m) => onSystem(m, (s) => s.replace("and in the [Lore] notes that come with the player's messages.", "in the [Lore] notes that come with the player's messages, and what you remember about the player.")),
  // the memories addressed to the mind: "the player" is the one speaking to you now
  heading: (m) => onLast(m, (s) => s.replace("[You remember about this player]", "[What you remember about the player speaking to you now, from before]")),
  // both
  both: (m) => VARIANTS.heading(VARIANTS.rules(m)),
  // the memories next to the line (after the other notes)
  last: (m) =>
    onLast(m, (s) => {
      const b = s.match(MEMORY_BLOCK);
      if (!b) return s;
      const rest = s.replace(b[0], "").replace(/\n{3,}/g, "\n\n");
      return rest.replace("[Player]\n", `${b[0].trimEnd()}\n\n[Player]\n`);
    }),
  // the player's heading names them when a memory does ("[Player: Mara]"): "my name" is then the speaker's
  named: (m) =>
    onLast(m, (s) => {
      const n = /player's name is ([^.\n]+)\./.exec(s);
      return n ? s.replace("[Player]\n", `[Player: ${n[1]}]\n`) : s;
    }),
  // the player's heading says who speaks to whom
  speaker: (m) => onLast(m, (s) => s.replace("[Player]\n", "[The player says to you]\n")),
  // the memories in the second person: "The player's name is Mara." → "Your name is Mara" would be wrong; "This player"
  you: (m) => onLast(m, (s) => s.replace(MEMORY_BLOCK, (all) => all.replace(/\bThe player\b/g, "The player speaking to you"))),
};
function onSystem(m: ChatMessage[], f: (s: string) => string): ChatMessage[] {
  return m.map((x) => (x.role === "system" ? { ...x, content: f(x.content) } : x));
}
function onLast(m: ChatMessage[], f: (s: string) => string): ChatMessage[] {
  return m.map((x, i) => (i === m.length - 1 ? { ...x, content: f(x.content) } : x));
}

const guardMode = process.argv.includes("--guard");
const askIndexes = arg("asks", "0,1,2").split(",").map(Number);
const variants = guardMode ? ["before", "after"] : arg("variants", Object.keys(VARIANTS).join(",")).split(",");
const scripts = arg("scripts", Object.keys(SCRIPTS).join(",")).split(",").map((k) => ({ key: k, ...SCRIPTS[k] }));

const t = await createTestApp({ model: qwen, modelsDir: fx.modelsDir, embeddingModel: fx.minilm, threads, parallel: 1, contextSize: 4096, maxReplyTokens: 64, generationTimeoutMs: 600_000 });
const w = loadWorld(t, TUNING, join(import.meta.dir, ".."));
await indexAll(t.app);
const turns = new SeededTurns(t.app.ctx.generation!);
console.error(`bench/recall: ${cpus()[0]?.model}, threads ${threads}, load ${loadavg()[0].toFixed(1)}`);
const counts: Record<string, { samples: number; recalled: number; clean: number; problems: number }> = {};
for (const v of variants) counts[v] = { samples: 0, recalled: 0, clean: 0, problems: 0 };
let promptsWithMemories = 0;
let bareWithMemories = 0;
let prompts = 0;
for (const s of scripts) {
  const m = w.minds[s.mind];
  const player = `recall-${s.key}`;
  updateSettings(t.app.ctx as any, m.projectId, { maxSessionLength: s.lines.length });
  for (const line of s.lines) {
    const r = await turns.turn(1, () => interactJson(t, w.key[m.projectId], { text: line, entityMindId: m.id, playerId: player }));
    console.error(`  ${s.key} said "${line}" → ${JSON.stringify(r.reply)}`);
  }
  await t.app.scheduler.trigger("memory-summary");
  const stored = scopeMemories(t.app.ctx.db, { projectId: m.projectId, mindId: m.id, playerId: player }).map((x) => x.text);
  console.error(`  ${s.key} memories: ${JSON.stringify(stored)}`);
  updateSettings(t.app.ctx as any, m.projectId, { maxSessionLength: 20 });
  for (const ask of s.asks.filter((_, i) => askIndexes.includes(i))) {
    // As a game asks for them (interface spec: `memory.retrieve`, default false); without it no memory is retrieved.
    const bare = await prepareTurn(t.app.ctx, m.projectId, validateInteract({ text: ask.text, entityMindId: m.id, playerId: player }));
    if (bare.newMemories.length) bareWithMemories++;
    const p = await prepareTurn(t.app.ctx, m.projectId, validateInteract({ text: ask.text, entityMindId: m.id, playerId: player, memory: { retrieve: true } }));
    const last = p.messages.at(-1)!.content;
    prompts++;
    if (p.newMemories.length) promptsWithMemories++;
    console.error(`  new session, "${ask.text}": history ${p.history.length}, memories in the prompt ${p.newMemories.length}/${stored.length}\n---\n${last}\n---`);
    const context = turnGuard(p, ask.text).context;
    if (guardMode) {
      for (let seed = 1; seed <= seeds; seed++)
        for (const v of variants) {
          // before: the guard's context without the player's memories (as the code was); after: with them
          const c = v === "before" ? { ...context, playerFacts: undefined } : context;
          const { result, report } = await generateReply(t.app.ctx.generation!, { conversationKey: `recall:${s.key}`, messages: p.messages, maxTokens: p.replyTokens, temperature: p.temperature, seed, minTokens: 1, speaker: p.mind.entityName }, { context: c }, GUARD_POLICY);
          const ok = ask.recalls.test(result.text);
          const problems = replyProblems(result.text, context).map((x) => x.kind);
          counts[v].samples++;
          if (ok) counts[v].recalled++;
          if (ok && problems.length === 0) counts[v].clean++;
          if (problems.length) counts[v].problems++;
          const trail = report.attempts.map((a) => a.problems.map((x) => x.kind).join("+") || "ok").join(" → ");
          console.error(`    ${v} s${seed}: ${ok ? "✓" : "✗"} ${problems.join(",")} [${trail}] ${JSON.stringify(result.text)}`);
        }
      continue;
    }
    for (const v of variants) {
      const messages = VARIANTS[v](p.messages);
      for (let seed = 1; seed <= seeds; seed++) {
        const r = await t.app.ctx.generation!.generate({ conversationKey: `recall:${s.key}`, messages, maxTokens: tokens, temperature: p.temperature, seed, minTokens: 1 });
        const ok = ask.recalls.test(r.text);
        const problems = replyProblems(r.text, context).map((x) => x.kind);
        counts[v].samples++;
        if (ok) counts[v].recalled++;
        if (ok && problems.length === 0) counts[v].clean++;
        if (problems.length) counts[v].problems++;
        console.error(`    ${v} s${seed}: ${ok ? "✓" : "✗"} ${problems.join(",")} ${JSON.stringify(r.text)}`);
      }
    }
  }
}
console.log(`\nprompts of a new session holding the player's memories: ${promptsWithMemories}/${prompts} with memory.retrieve, ${bareWithMemories}/${prompts} without`);
console.log(`\n| variant | samples | recalled | recalled, no problem (not "My name is Mara") | with a problem |\n|---|---|---|---|---|`);
for (const [v, c] of Object.entries(counts)) console.log(`| ${v} | ${c.samples} | ${c.recalled} (${Math.round((100 * c.recalled) / c.samples)} %) | ${c.clean} | ${c.problems} |`);
console.log(`\nload average at the end ${loadavg()[0].toFixed(1)}; seeds 1–${seeds}, ${tokens} tokens, scripts ${scripts.map((s) => s.key).join(", ")}`);
await t.close();
