/**
 * Why a grounding miss misses: for every grounding question of the quality worlds, the turn as the product prepares
 * it (prepareTurn, no generation) — is the chunk holding the answer in the prompt, in the mind's static prompt (its
 * shared lore) or among the turn's notes, at which place, among how many notes, how many tokens — and, given result
 * files of bench/quality.ts, each missed reply beside that with what the reply did instead (said it does not know,
 * or said something else while the fact was in front of it). Classifies; it is not a place to pick phrases from.
 *
 *   bun bench/groundingMisses.ts --worlds tuning,heldout [--model qwen] [--shared-lore-tokens N] [FILES...]
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { prepareTurn } from "../src/npc/prepareTurn.ts";
import { validateInteract } from "../src/npc/validateInteract.ts";
import { chatTokens } from "../src/npc/tokenBudget.ts";
import { createTestApp } from "../test/support/testApp.ts";
import { qwenFixture } from "../test/realmodel/realFixtures.ts";
import { TUNING } from "./support/qualityQuestions.ts";
import { CINDERVALE } from "./worlds/cindervale.questions.ts";
import { REEDMOUTH } from "./worlds/reedmouth.questions.ts";
import { loadWorld, type ReplyRecord } from "./support/qualityWorldRun.ts";
import type { QualityWorld } from "./support/worldTypes.ts";
import { arg, fixturesOrExit } from "./support/benchArgs.ts";
import { indexAll } from "./support/indexAll.ts";

const fx = fixturesOrExit("groundingMisses");
const root = join(import.meta.dir, "..");
const WORLDS: Record<string, QualityWorld[]> = { tuning: [TUNING, REEDMOUTH], old: [TUNING], third: [REEDMOUTH], heldout: [CINDERVALE] };
const worlds = [...new Set(arg("worlds", "tuning,heldout").split(",").flatMap((k) => WORLDS[k]))];
const flagged = new Set(["--worlds", "--model", "--shared-lore-tokens"].flatMap((f) => { const i = process.argv.indexOf(f); return i >= 0 ? [process.argv[i + 1]] : []; }));
const files = process.argv.slice(2).filter((a) => !a.startsWith("--") && !flagged.has(a));
const sharedLoreTokens = arg("shared-lore-tokens", "");

// The model is loaded for its tokenizer only (the budgets the turn is fitted with); nothing is generated.
const t = await createTestApp({
  model: arg("model", "qwen") === "qwen" ? qwenFixture()! : fx.smol, modelsDir: fx.modelsDir, embeddingModel: fx.minilm, threads: 1, parallel: 1,
  contextSize: 4096, maxReplyTokens: 64, ...(sharedLoreTokens ? { sharedLoreTokens: Number(sharedLoreTokens) } : {}),
});

const misses = new Map<string, ReplyRecord[]>();
for (const f of files) {
  const run = JSON.parse(readFileSync(f, "utf8")) as { worlds: Record<string, { records: ReplyRecord[] }> };
  for (const [name, { records }] of Object.entries(run.worlds))
    for (const r of records) if (r.part === "grounding" && r.hit === false) misses.set(`${name}|${r.arm}|${r.mind}|${r.text}`, [...(misses.get(`${name}|${r.arm}|${r.mind}|${r.text}`) ?? []), r]);
}
const DONT_KNOW = /\b(don't|do not|doesn't|does not|can't|cannot) (know|recall|remember|say|assist|help)|\bnot sure\b|\bno idea\b|\bunknown\b/i;

for (const world of worlds) {
  const w = loadWorld(t, world, root);
  await indexAll(t.app);
  console.log(`\n#### ${world.name}\n`);
  console.log("| mind | question | answer chunk: where | notes this turn | static / prompt tokens | replies missed (arm: seeds) | what the missed reply did |");
  console.log("|---|---|---|---|---|---|---|");
  for (const [i, q] of world.grounding.entries()) {
    const m = w.minds[q.mind];
    const req = validateInteract({ text: q.text, entityMindId: m.id, playerId: `diag-${i}` });
    const p = await prepareTurn(t.app.ctx as any, m.projectId, req);
    const docIds = new Map(t.app.ctx.db.query<{ id: string; key: string }, [string]>("SELECT id, key FROM documents WHERE project_id = ?").all(m.projectId).map((r) => [r.key, r.id]));
    const answer = t.app.ctx.db
      .query<{ id: string; content: string }, [string]>("SELECT id, content FROM chunks WHERE document_id = ? ORDER BY chunk_index")
      .all(docIds.get(q.doc!)!)
      .filter((c) => q.fact.test(c.content))
      .map((c) => c.id);
    const sharedAt = p.sharedLore.findIndex((l) => answer.includes(l.chunkId));
    // the turn's notes render best last: place 1 is next to the player's line
    const turnAt = p.newLore.findIndex((l) => answer.includes(l.chunkId));
    const where =
      answer.length === 0 ? "no chunk states the fact" :
      sharedAt >= 0 ? `static prompt, shared note ${sharedAt + 1} of ${p.sharedLore.length}` :
      turnAt >= 0 ? `turn note, place ${turnAt + 1} from the player's line of ${p.newLore.length}` : "**not in the prompt**";
    const staticTokens = p.budget.staticTokens;
    const prompt = chatTokens(t.app.ctx as any, p.messages);
    const missed = [...misses.entries()].filter(([k]) => k.startsWith(`${world.name}|`) && k.endsWith(`|${q.mind}|${q.text}`));
    const missText = missed.map(([k, rs]) => `${k.split("|")[1]}: s${rs.map((r) => r.seed).join(",")}`).join("; ") || "–";
    const did = missed
      .filter(([k]) => k.split("|")[1] === "lorehold")
      .flatMap(([, rs]) => rs.map((r) => `s${r.seed} ${DONT_KNOW.test(r.reply) ? "says it does not know" : r.reply.length < 30 ? "cut short" : "states something else"}: "${r.reply.slice(0, 90).replaceAll("|", "/")}"`))
      .join("<br>") || "–";
    console.log(`| ${q.mind} | ${q.text} | ${where} | ${p.newLore.length} | ${staticTokens} / ${prompt} | ${missText} | ${did} |`);
  }
}
await t.close();
