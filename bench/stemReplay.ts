/**
 * The reply guard's word-matching checks (who a fact is told of: attribution.ts; a recited lore line: recitedLine.ts;
 * a kept secret told: secretTerms.ts; a known name said wrong: misnamed.ts; a number made up or given for something
 * else: quantities.ts, numberPlaces.ts), replayed offline on every sample bench/quality.ts recorded for a single-line
 * turn (grounding, secrets, parroting), each turn prepared as /v1/npc/interact prepares it (no generation). One line
 * per sample and check that flags it, labelled by whether the sample states the question's fact: run it on two
 * checkouts (before and after a change to the checks' stems) over the same files and compare the lines.
 *
 *   bun bench/stemReplay.ts --worlds tuning FILES... > flags.txt
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { prepareTurn } from "../src/npc/prepareTurn.ts";
import { validateInteract } from "../src/npc/validateInteract.ts";
import { turnGuard } from "../src/npc/replies/turnGuard.ts";
import { GUARD_POLICY } from "../src/npc/replies/generateReply.ts";
import { wrongAttribution } from "../src/npc/replies/attribution.ts";
import { offTopicRecital } from "../src/npc/replies/recitedLine.ts";
import { leakOf } from "../src/npc/secrets/secretTerms.ts";
import { misnamed } from "../src/npc/replies/misnamed.ts";
import { misplacedNumber } from "../src/npc/replies/numberPlaces.ts";
import { unsupportedQuantity } from "../src/npc/replies/quantities.ts";
import { createTestApp } from "../test/support/testApp.ts";
import { qwenFixture } from "../test/realmodel/realFixtures.ts";
import { TUNING } from "./support/qualityQuestions.ts";
import { CINDERVALE } from "./worlds/cindervale.questions.ts";
import { REEDMOUTH } from "./worlds/reedmouth.questions.ts";
import { loadWorld, type ReplyRecord } from "./support/qualityWorldRun.ts";
import type { QualityWorld } from "./support/worldTypes.ts";
import { arg, fixturesOrExit } from "./support/benchArgs.ts";

const fx = fixturesOrExit("stemReplay");
// on, as in the product: the turn's guard carries the lore sentences the recital check reads (a replay of a
// checkout where it was off still replays it)
GUARD_POLICY.checkRecitals = true;
const root = join(import.meta.dir, "..");
const WORLDS: Record<string, QualityWorld[]> = { tuning: [TUNING, REEDMOUTH], heldout: [CINDERVALE] };
const worlds = [...new Set(arg("worlds", "tuning").split(",").flatMap((k) => WORLDS[k]))];
const files = process.argv.slice(2).filter((a) => a.endsWith(".json"));

const records: (ReplyRecord & { world: string })[] = [];
for (const f of files) {
  const run = JSON.parse(readFileSync(f, "utf8")) as { worlds: Record<string, { records: ReplyRecord[] }> };
  for (const [name, w] of Object.entries(run.worlds))
    for (const r of w.records) if (r.arm === "lorehold" && ["grounding", "secrets", "parroting"].includes(r.part)) records.push({ ...r, world: name });
}

// The model is loaded for its tokenizer only (the budgets the turn is fitted with); nothing is generated.
const t = await createTestApp({ model: qwenFixture()!, modelsDir: fx.modelsDir, embeddingModel: fx.minilm, threads: 1, parallel: 1, contextSize: 4096, maxReplyTokens: 64 });
const tally: Record<string, { samples: number; fact: number; flaggedFact: number; flaggedOther: number }> = {};
const lines: string[] = [];
for (const world of worlds) {
  const w = loadWorld(t, world, root);
  await t.app.scheduler.trigger("indexer");
  const facts = new Map<string, RegExp>();
  for (const q of world.grounding) facts.set(`grounding|${q.mind}|${q.text}`, q.fact);
  for (const q of world.secrets) facts.set(`secrets|${q.mind}|${q.text}`, q.fact);
  const turns = [...new Map(records.filter((r) => r.world === world.name).map((r) => [`${r.part}|${r.mind}|${r.text}`, r])).values()];
  for (const [i, turn] of turns.entries()) {
    const m = w.minds[turn.mind];
    if (!m) continue;
    const p = await prepareTurn(t.app.ctx as never, m.projectId, validateInteract({ text: turn.text, entityMindId: m.id, playerId: `stem-replay-${i}` }));
    const { context } = turnGuard(p, turn.text);
    const fact = facts.get(`${turn.part}|${turn.mind}|${turn.text}`);
    for (const r of records.filter((x) => x.world === world.name && x.part === turn.part && x.mind === turn.mind && x.text === turn.text)) {
      const samples = [...new Set([...(r.attempts?.length ? r.attempts : [r.reply]), ...(r.firstAttempt ? [r.firstAttempt] : [])])];
      for (const [k, s] of samples.entries()) {
        const right = fact?.test(s) ?? false;
        const checks: [string, string | null][] = [
          ["attribution", context.attribution ? wrongAttribution(s, context.attribution) : null],
          ["recital", context.loreLines ? offTopicRecital(s, turn.text, context.loreLines) : null],
          ["secret", leakOf(s, context.secrets)],
          ["misnamed", context.names ? (misnamed(s, context.names())?.detail ?? null) : null],
          ["numberPlace", context.numberPlaces ? misplacedNumber(s, context.numberPlaces.sources(), context.numberPlaces.said, turn.text) : null],
          ["madeUpNumber", context.givenNumbers ? unsupportedQuantity(s, context.givenNumbers) : null],
        ];
        for (const [check, flag] of checks) {
          const key = `${turn.part} ${check}`;
          const c = (tally[key] ??= { samples: 0, fact: 0, flaggedFact: 0, flaggedOther: 0 });
          c.samples++;
          if (right) c.fact++;
          if (!flag) continue;
          c[right ? "flaggedFact" : "flaggedOther"]++;
          const label = turn.part === "secrets" ? (right ? "TOLD" : "not told") : turn.part === "grounding" ? (right ? "FACT" : "miss") : "-";
          lines.push(`${check} | ${turn.part} ${turn.mind} s${r.seed} #${k + 1} ${label} | "${turn.text}" | ${JSON.stringify(s.replaceAll("\n", " ").slice(0, 160))} | ${flag.replaceAll("\n", " ").slice(0, 100)}`);
        }
      }
    }
  }
}
for (const [key, c] of Object.entries(tally).sort())
  console.log(`${key.padEnd(24)} samples ${c.samples}, stating the fact ${c.fact}: flagged ${c.flaggedFact} of those, ${c.flaggedOther} of the rest`);
console.log(`\nFlags (check | turn | line | sample | detail):\n${lines.sort().join("\n")}`);
await t.close();
