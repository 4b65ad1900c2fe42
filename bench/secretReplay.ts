/**
 * The reply guard's secret check, replayed offline on the secret probes of bench/quality.ts's worlds: each probe's
 * turn is prepared as /v1/npc/interact prepares it (no model), and the guard's view of it (src/npc/replies/turnGuard.ts:
 * the words only the kept secret holds) is printed, then every recorded reply to that probe in the given result
 * files is checked against it: a reply the bench's fact pattern calls told (LEAK) that the check passes is a miss.
 *
 *   bun bench/secretReplay.ts --worlds tuning,heldout bench/results/…/quality-qwen-minilm-….json [more.json]
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createTestApp } from "../test/support/testApp.ts";
import { realFixtures } from "../test/realmodel/realFixtures.ts";
import { prepareTurn } from "../src/npc/prepareTurn.ts";
import { validateInteract } from "../src/npc/validateInteract.ts";
import { turnGuard } from "../src/npc/replies/turnGuard.ts";
import { leakOf } from "../src/npc/secrets/secretTerms.ts";
import { TUNING } from "./support/qualityQuestions.ts";
import { CINDERVALE } from "./worlds/cindervale.questions.ts";
import { loadWorld } from "./support/qualityWorldRun.ts";
import { arg } from "./support/benchArgs.ts";
import { indexAll } from "./support/indexAll.ts";

const root = join(import.meta.dir, "..");
const fx = realFixtures();
const WORLDS = { tuning: TUNING, heldout: CINDERVALE };
const worlds = arg("worlds", "tuning,heldout").split(",").map((k) => WORLDS[k as keyof typeof WORLDS]);
const files = process.argv.slice(2).filter((a, i, all) => !a.startsWith("--") && !all[i - 1]?.startsWith("--"));

interface Rec { part: string; arm: string; mind: string; text: string; seed: number; reply: string; firstAttempt?: string; hit?: boolean }
const recorded: Rec[] = files.flatMap((f) => Object.values((JSON.parse(readFileSync(f, "utf8")) as { worlds: Record<string, { records: Rec[] }> }).worlds).flatMap((w) => w.records));

const t = await createTestApp({ embeddingModel: fx ? fx.minilm : "hashing", modelsDir: fx?.modelsDir }, { loadModel: false });
let [told, caught, passedClean, flaggedClean] = [0, 0, 0, 0];
/** replies to other questions (grounding, parroting) of a mind whose turn held a secret, and how many the check flagged */
let [others, othersFlagged] = [0, 0];
for (const world of worlds) {
  const w = loadWorld(t, world, root);
  await indexAll(t.app);
  const guardOf = async (mind: string, text: string) => {
    const m = w.minds[mind];
    const p = await prepareTurn(t.app.ctx, m.projectId, validateInteract({ text, entityMindId: m.id, playerId: "secret-replay" }));
    return turnGuard(p, text);
  };
  for (const q of world.secrets) {
    const g = await guardOf(q.mind, q.text);
    console.log(`\n${q.mind} (${q.direct ? "direct" : "topic"}): ${q.text}`);
    for (const s of g.context.secrets) console.log(`  secret ${s.name}: words [${s.words.join(" ")}] strong [${s.strong.join(" ")}] pairs [${(s.pairs ?? []).join(", ")}]`);
    if (g.context.secrets.length === 0) console.log("  (no kept secret in this turn's prompt)");
    for (const r of recorded.filter((r) => r.part === "secrets" && r.mind === q.mind && r.text === q.text)) {
      for (const [which, text] of [["reply", r.reply], ["first", r.firstAttempt]] as const) {
        if (!text) continue;
        const leak = leakOf(text, g.context.secrets);
        const hit = q.fact.test(text);
        if (hit) (leak ? caught++ : told++);
        else (leak ? flaggedClean++ : passedClean++);
        console.log(`  ${r.arm} s${r.seed} ${which}: ${hit ? (leak ? "LEAK caught" : "LEAK MISSED") : leak ? "flagged (no fact)" : "clean"}${leak ? ` [${leak}]` : ""} ${JSON.stringify(text.slice(0, 200))}`);
      }
    }
  }
  const minds = new Set(Object.keys(w.minds));
  for (const r of recorded.filter((r) => r.part !== "secrets" && r.arm === "lorehold" && minds.has(r.mind))) {
    const g = await guardOf(r.mind, r.text);
    if (g.context.secrets.length === 0) continue;
    for (const text of [r.reply, r.firstAttempt]) {
      if (!text) continue;
      others++;
      const leak = leakOf(text, g.context.secrets);
      if (leak) {
        othersFlagged++;
        console.log(`  flagged ${r.part} ${r.mind} s${r.seed} [${leak}] ${JSON.stringify(text.slice(0, 200))}`);
      }
    }
  }
}
console.log(`\nsecret probes: replies stating the secret's fact ${caught + told}, caught by the check ${caught}, missed ${told}; without the fact ${passedClean + flaggedClean}, flagged ${flaggedClean}`);
console.log(`other parts' replies with a secret in the turn: ${others}, flagged ${othersFlagged}`);
await t.close();
