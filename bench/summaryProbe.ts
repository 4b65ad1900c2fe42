/**
 * The memory summary of a world's memory script, many times over: the script's three lines are played through
 * POST /v1/npc/interact as bench/quality.ts plays them (each line's generations seeded, `--transcripts` seeds: one
 * session each), then each session's transcript is summarised by `summariseSession` once per `--seeds` seed. Each
 * summary's text is read two ways, the same draws for both: **before**, as the summary was read before the player's
 * statements were checked (sanitise, grounded, the mind's voice), and **now**, `memoriesOfSummary` (that, then no
 * sentence that took over someone else's subject, then each statement of the player's whose names and numbers no
 * memory holds). Per arm: each fact of the script kept, every memory in the third person, the worked example's
 * facts stored, sentences that made the player the subject of someone else's fact.
 *
 *   bun bench/summaryProbe.ts --worlds third --transcripts 1-3 --seeds 1-6 [--model qwen|smol] [--threads 1]
 *
 * Tuning worlds only while choosing (`tuning`, `old`, `third`); `heldout` once, at the end.
 */
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { createTestApp } from "../test/support/testApp.ts";
import { loadMindProfile } from "../src/npc/mindProfile.ts";
import { groundedDrafts } from "../src/npc/memory/groundedDrafts.ts";
import { inMindsVoice } from "../src/npc/memory/memoryVoice.ts";
import { playerStatements, withoutBorrowedSubjects } from "../src/npc/memory/playerStatements.ts";
import { sanitiseDrafts } from "../src/npc/memory/sanitiseDrafts.ts";
import { parseModelJson, summariseSession } from "../src/npc/memory/summariseSession.ts";
import { EXAMPLE_MARKERS } from "../src/npc/memory/summaryPrompt.ts";
import type { MemoryDraft } from "../src/npc/memory/types.ts";
import type { GenerateRequest } from "../src/generation/types.ts";
import { arg, fixturesOrExit } from "./support/benchArgs.ts";
import { interactJson, SeededTurns } from "./support/benchTurns.ts";
import { indexAll } from "./support/indexAll.ts";
import { TUNING } from "./support/qualityQuestions.ts";
import { loadWorld } from "./support/qualityWorldRun.ts";
import { CINDERVALE } from "./worlds/cindervale.questions.ts";
import { REEDMOUTH } from "./worlds/reedmouth.questions.ts";
import { qwenFixture } from "../test/realmodel/realFixtures.ts";

const fx = fixturesOrExit("summaryProbe");
const range = (s: string) => {
  const [a, b] = s.split("-").map(Number);
  return Array.from({ length: (b ?? a) - a + 1 }, (_, i) => a + i);
};
const WORLDS = { tuning: [TUNING, REEDMOUTH], old: [TUNING], third: [REEDMOUTH], heldout: [CINDERVALE] } as const;
const worlds = arg("worlds", "tuning").split(",").flatMap((k) => WORLDS[k as keyof typeof WORLDS] ?? []);
const transcriptSeeds = range(arg("transcripts", "1-3"));
const seeds = range(arg("seeds", "1-6"));
const threads = Number(arg("threads", "1"));
const modelKey = arg("model", "qwen");
const model = modelKey === "smol" ? fx.smol : qwenFixture();
if (!model) {
  console.error("bench/summaryProbe: Qwen2.5-Coder-0.5B-Instruct is missing; run `sh scripts/fetch-fixtures.sh` first.");
  process.exit(2);
}

const t = await createTestApp({ model, modelsDir: fx.modelsDir, embeddingModel: fx.minilm, threads, parallel: 1, contextSize: 4096, maxReplyTokens: 64, generationTimeoutMs: 900_000 });
const gen = t.app.ctx.generation!;
const turns = new SeededTurns(gen);
// The summary's own text, as the model wrote it: both arms read the same draw.
let raw = "";
const generate = gen.generate.bind(gen);
gen.generate = async (req: GenerateRequest) => {
  const r = await generate(req);
  raw = r.text;
  return r;
};
const loaded = worlds.map((w) => loadWorld(t, w, join(import.meta.dir, "..")));
await indexAll(t.app);
const load0 = loadavg()[0];
console.error(`bench/summaryProbe: ${cpus()[0]?.model}, ${modelKey}, threads ${threads}, load ${load0.toFixed(1)}, transcripts ${transcriptSeeds.join(",")}, seeds ${seeds.join(",")}`);

type Msg = { role: "user" | "assistant"; content: string };
interface Arm { summaries: number; allFacts: number; facts: Map<string, number>; notThird: number; example: number; borrowed: number; memories: number }
const arm = (): Arm => ({ summaries: 0, allFacts: 0, facts: new Map(), notThird: 0, example: 0, borrowed: 0, memories: 0 });
const rows: { world: string; transcript: number; before: Arm; now: Arm }[] = [];
const THIRD = /^The player\b/;

for (const w of loaded) {
  const ms = w.world.memory;
  if (!ms) continue;
  const m = w.minds[ms.mind];
  const mindName = loadMindProfile(t.app.ctx as any, m.projectId, m.id).entityName;
  for (const ts of transcriptSeeds) {
    const messages: Msg[] = [];
    for (const line of ms.lines) {
      const r = await turns.turn(ts, () => interactJson(t, w.key[m.projectId], { text: line, entityMindId: m.id, playerId: `probe-${ts}` }));
      messages.push({ role: "user", content: line }, { role: "assistant", content: r.reply });
    }
    console.error(`\n== ${w.world.name}, ${mindName}, transcript s${ts}:\n${messages.map((x) => `  ${x.role === "user" ? "Player" : mindName}: ${x.content}`).join("\n")}`);
    const row = { world: w.world.name, transcript: ts, before: arm(), now: arm() };
    rows.push(row);
    const statements = playerStatements(mindName, messages);
    const score = (a: Arm, memories: MemoryDraft[]) => {
      const all = memories.map((x) => x.text).join(" | ");
      a.summaries++;
      a.memories += memories.length;
      const kept = Object.entries(ms.facts).filter(([, re]) => re.test(all)).map(([k]) => k);
      for (const k of kept) a.facts.set(k, (a.facts.get(k) ?? 0) + 1);
      if (kept.length === Object.keys(ms.facts).length) a.allFacts++;
      a.notThird += memories.filter((x) => !THIRD.test(x.text)).length;
      if (EXAMPLE_MARKERS.test(all)) a.example++;
      a.borrowed += memories.length - withoutBorrowedSubjects(memories, statements).length;
      return kept;
    };
    for (const seed of seeds) {
      raw = "";
      const r = await summariseSession(gen, { mindName, playerId: `probe-${ts}`, messages }, { seed, conversationKey: `summary-probe-${ts}` });
      const before = inMindsVoice(groundedDrafts(sanitiseDrafts(parseModelJson(raw)), mindName, messages, { example: true }), mindName, messages);
      const kb = score(row.before, before);
      const kn = score(row.now, r.memories);
      console.error(`  s${seed} model: ${raw.replace(/\s+/g, " ").slice(0, 400)}`);
      console.error(`     before [${kb.join(",")}] ${JSON.stringify(before.map((x) => x.text))}`);
      console.error(`     now    [${kn.join(",")}] ${JSON.stringify(r.memories.map((x) => x.text))}`);
    }
  }
}

const factKeys = (world: string) => Object.keys(loaded.find((w) => w.world.name === world)!.world.memory!.facts);
const cell = (a: Arm, world: string) =>
  `${a.allFacts}/${a.summaries} (${factKeys(world).map((k) => `${k} ${a.facts.get(k) ?? 0}`).join(", ")}) | ${a.notThird} | ${a.example} | ${a.borrowed} | ${(a.memories / Math.max(1, a.summaries)).toFixed(1)}`;
console.log(`\n| world, transcript | arm | summaries with every fact (per fact) | memories not in the third person | summaries with the example's facts | sentences that took over another's subject | memories a summary |`);
console.log(`|---|---|---|---|---|---|---|`);
for (const r of rows) {
  console.log(`| ${r.world} s${r.transcript} | before | ${cell(r.before, r.world)} |`);
  console.log(`| ${r.world} s${r.transcript} | now | ${cell(r.now, r.world)} |`);
}
console.log(`\n${modelKey}, ${threads} thread(s), summaries at seeds ${seeds.join(",")} of transcripts at seeds ${transcriptSeeds.join(",")}; load average ${load0.toFixed(1)} → ${loadavg()[0].toFixed(1)}; ${cpus()[0]?.model}`);
await t.close();
