/**
 * The reply guard's recital check (src/npc/replies/recitedLine.ts) replayed offline on the grounding samples result
 * files of bench/quality.ts recorded: every sample of every grounding turn (each resample's text when the guard drew
 * more than one), judged against the turn's lore lines as the product prepares them (prepareTurn, no generation), and
 * counted by whether that sample stated the question's fact. A flag on a right answer is a false positive; a miss that
 * recites a note and is not flagged is one the check does not reach. For each missed reply: where the answer's
 * sentence was (the static prompt's shared lore or the turn's notes), and which lore sentence the reply is closest to.
 *
 *   bun bench/recitalReplay.ts --worlds tuning FILES...
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { prepareTurn } from "../src/npc/prepareTurn.ts";
import { validateInteract } from "../src/npc/validateInteract.ts";
import { turnGuard } from "../src/npc/replies/turnGuard.ts";
import { GUARD_POLICY } from "../src/npc/replies/generateReply.ts";
import { contentStems, offTopicRecital } from "../src/npc/replies/recitedLine.ts";
import { splitSentences } from "../src/npc/replies/sentences.ts";
import { createTestApp } from "../test/support/testApp.ts";
import { qwenFixture } from "../test/realmodel/realFixtures.ts";
import { TUNING } from "./support/qualityQuestions.ts";
import { CINDERVALE } from "./worlds/cindervale.questions.ts";
import { REEDMOUTH } from "./worlds/reedmouth.questions.ts";
import { loadWorld, type ReplyRecord } from "./support/qualityWorldRun.ts";
import type { QualityWorld } from "./support/worldTypes.ts";
import { arg, fixturesOrExit } from "./support/benchArgs.ts";

const fx = fixturesOrExit("recitalReplay");
// on, as in the product: the turn's guard carries the lore sentences the recital check reads (a replay of a
// checkout where it was off still replays it)
GUARD_POLICY.checkRecitals = true;
const root = join(import.meta.dir, "..");
const WORLDS: Record<string, QualityWorld[]> = { tuning: [TUNING, REEDMOUTH], old: [TUNING], third: [REEDMOUTH], heldout: [CINDERVALE] };
const worlds = [...new Set(arg("worlds", "tuning").split(",").flatMap((k) => WORLDS[k]))];
const files = process.argv.slice(2).filter((a) => a.endsWith(".json"));

const records: (ReplyRecord & { world: string })[] = [];
for (const f of files) {
  const run = JSON.parse(readFileSync(f, "utf8")) as { worlds: Record<string, { records: ReplyRecord[] }> };
  for (const [name, w] of Object.entries(run.worlds)) for (const r of w.records) if (r.part === "grounding" && r.arm === "lorehold") records.push({ ...r, world: name });
}

// The model is loaded for its tokenizer only (the budgets the turn is fitted with); nothing is generated.
const t = await createTestApp({ model: qwenFixture()!, modelsDir: fx.modelsDir, embeddingModel: fx.minilm, threads: 1, parallel: 1, contextSize: 4096, maxReplyTokens: 64 });
const tally = { samples: 0, flaggedFact: 0, flaggedMiss: 0, fact: 0, miss: 0 };
const missLines: string[] = [];
const flagLines: string[] = [];
for (const world of worlds) {
  const w = loadWorld(t, world, root);
  await t.app.scheduler.trigger("indexer");
  for (const [i, q] of world.grounding.entries()) {
    const m = w.minds[q.mind];
    const req = validateInteract({ text: q.text, entityMindId: m.id, playerId: `replay-${i}` });
    const p = await prepareTurn(t.app.ctx as any, m.projectId, req);
    const lore = turnGuard(p, q.text).context.loreLines ?? [];
    const answerShared = p.sharedLore.some((l) => q.fact.test(l.text));
    const answerTurn = p.newLore.findIndex((l) => q.fact.test(l.text));
    const where = answerShared ? "shared lore" : answerTurn >= 0 ? `turn note ${answerTurn + 1} of ${p.newLore.length} from the line` : "not in the prompt";
    const lastNote = p.newLore[0]?.documentName ?? "(none)";
    for (const r of records.filter((x) => x.world === world.name && x.mind === q.mind && x.text === q.text)) {
      const samples = r.attempts?.length ? r.attempts : [r.reply];
      for (const [k, s] of samples.entries()) {
        const right = q.fact.test(s);
        const flag = offTopicRecital(s, q.text, lore);
        tally.samples++;
        tally[right ? "fact" : "miss"]++;
        if (flag) {
          tally[right ? "flaggedFact" : "flaggedMiss"]++;
          flagLines.push(`- ${right ? "FACT" : "miss"} ${q.mind} s${r.seed} sample ${k + 1}, "${q.text}": "${s.replaceAll("\n", " ").slice(0, 160)}" ← recites "${flag.slice(0, 80)}"`);
        }
      }
      if (!r.hit) {
        const closest = splitSentences(r.reply).map((sent) => {
          const said = contentStems(sent);
          let best = "";
          let share = 0;
          for (const l of lore) {
            const ls = contentStems(l);
            const held = [...said].filter((x) => ls.has(x)).length / Math.max(1, said.size);
            if (held > share) [best, share] = [l, held];
          }
          return `${Math.round(100 * share)} % of "${best.slice(0, 70)}"`;
        });
        missLines.push(`- ${q.mind} s${r.seed}, "${q.text}" (answer: ${where}; the note next to the line: ${lastNote}): "${r.reply.replaceAll("\n", " ").slice(0, 160)}" — closest: ${closest.join("; ")}`);
      }
    }
  }
}
console.log(`samples ${tally.samples}: stated the fact ${tally.fact} (flagged ${tally.flaggedFact}), missed it ${tally.miss} (flagged ${tally.flaggedMiss})`);
console.log("\nFlagged samples:\n" + flagLines.join("\n"));
console.log("\nReturned replies that missed:\n" + missLines.join("\n"));
await t.close();
