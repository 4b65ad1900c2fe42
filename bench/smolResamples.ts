/**
 * What the reply guard's resamples cost a small model, replayed offline on the samples a bench/quality.ts run
 * recorded (`attempts`: every sample's raw text of a resampled turn). Each sample is shaped and judged as the guard
 * does (src/npc/replies/ReplyShaper.ts, detectors.ts), the guard's choice is replayed, and for every turn whose first
 * sample was sent back for repetition: was that sample grounded, and did the reply returned instead keep the fact?
 * Tuning worlds only (never the held-out one): Thornhaven, Saltmarsh, Reedmouth. No model: the world is loaded for the minds' profiles alone.
 *
 *   bun bench/smolResamples.ts bench/results/smol4/before/quality-smol-….json [more.json]
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createTestApp } from "../test/support/testApp.ts";
import { realFixtures } from "../test/realmodel/realFixtures.ts";
import { ReplyShaper } from "../src/npc/replies/ReplyShaper.ts";
import { replyProblems, type Problem, type ReplyContext } from "../src/npc/replies/detectors.ts";
import { TUNING } from "./support/qualityQuestions.ts";
import { REEDMOUTH } from "./worlds/reedmouth.questions.ts";
import { HYGIENE } from "./support/qualityTables.ts";
import { loadWorld, type LoadedWorld, type ReplyRecord } from "./support/qualityWorldRun.ts";
import { prepareTurn } from "../src/npc/prepareTurn.ts";
import { validateInteract } from "../src/npc/validateInteract.ts";
import { turnGuard } from "../src/npc/replies/turnGuard.ts";
import type { QualityWorld } from "./support/worldTypes.ts";
import { indexAll } from "./support/indexAll.ts";

const fx = realFixtures();
if (!fx) {
  console.error("bench/smolResamples: the fixture models are missing; run `sh scripts/fetch-fixtures.sh` first.");
  process.exit(2);
}
const files = process.argv.slice(2).filter((f) => !f.startsWith("--"));
const worlds: QualityWorld[] = [TUNING, REEDMOUTH];
// The turns' own guard context (notes, secrets among them) as the product prepares it: the same embedder, so the
// same notes reach the prompt; no model is needed to prepare a turn.
const t = await createTestApp({ modelsDir: fx.modelsDir, embeddingModel: fx.minilm, threads: 1 }, { loadModel: false });
const root = join(import.meta.dir, "..");
const loaded = new Map(worlds.map((w) => [w.name, loadWorld(t, w, root)]));
await indexAll(t.app);
async function guardContext(w: LoadedWorld, mind: string, text: string): Promise<ReplyContext> {
  const m = w.minds[mind];
  const p = await prepareTurn(t.app.ctx, m.projectId, validateInteract({ text, entityMindId: m.id, playerId: "replay" }));
  return turnGuard(p, text).context;
}

/** A sample as the guard saw it: shaped word by word (a sample the shaper stopped is cut where it stopped), then judged. */
function judged(raw: string, context: ReplyContext, last: boolean): { text: string; problems: Problem[]; early: boolean; stoppedBy: string | null } {
  const shaper = new ReplyShaper({ context, maxTokens: 64, judgeOpening: !last, streaming: false });
  let said = "";
  for (const piece of raw.match(/\s*\S+/g) ?? []) {
    said += piece;
    if (shaper.push(piece).stop) break;
  }
  const ended = /[.!?…"'”’)*]\s*$/.test(said) || said.length < raw.length ? "stop" : "length";
  const { text } = shaper.finish(said, ended);
  const problems = shaper.failure ? [shaper.failure] : replyProblems(text, context).filter((p) => p.kind !== "overLength");
  return { text, problems, early: !!shaper.failure, stoppedBy: shaper.stopWhy };
}

const kinds = (ps: Problem[]) => ps.map((p) => p.kind).join("+") || "ok";
/** generateReply.ts's weights (what the guard returns when every sample failed: the least bad) */
const WEIGHT: Record<string, number> = { empty: 10, secretLeak: 8, echo: 6, promptEcho: 6, meta: 5, wrongPerson: 5, roleLabel: 4, repeatsPrevious: 3, repetition: 2 };
/** The guard's choice replayed with the code of this tree: the first clean sample, else the least bad one. */
function replayed(samples: ReturnType<typeof judged>[]): number {
  const clean = samples.findIndex((s) => !s.early && s.problems.length === 0);
  if (clean >= 0) return clean;
  let [best, score] = [samples.length - 1, Infinity];
  samples.forEach((s, i) => {
    const x = s.early ? 1000 : s.problems.reduce((n, p) => n + (WEIGHT[p.kind] ?? 0) + (p.kind === "echo" ? 250 : 0), 0);
    if (x < score) [best, score] = [i, x];
  });
  return best;
}
const isBad = (ps: Problem[]) => ps.some((p) => (HYGIENE as string[]).includes(p.kind));
const sum = { lost: 0, gained: 0, lostNow: 0, gainedNow: 0, asked: 0, firstHit: 0, returnedHit: 0, replayedHit: 0, turns: 0, returnedBad: 0, replayedBad: 0, replayedResampled: 0 };
let [turns, resampled, repFirst, repFirstHit, repReturnedHit] = [0, 0, 0, 0, 0];
const byKind = new Map<string, number>();
const lines: string[] = [];
for (const file of files) {
  const data = JSON.parse(readFileSync(file, "utf8")) as { worlds: Record<string, { records: ReplyRecord[] }> };
  for (const [name, world] of Object.entries(data.worlds)) {
    const w = loaded.get(name);
    if (!w) continue;
    const facts = new Map(w.world.grounding.map((q) => [`${q.mind}\n${q.text}`, q.fact as RegExp]));
    for (const r of world.records) {
      if (r.arm !== "lorehold") continue;
      turns++;
      const ctx = await guardContext(w, r.mind, r.text);
      const fact = facts.get(`${r.mind}\n${r.text}`);
      const hit = (s: string) => (fact ? fact.test(s) : null);
      const samples = r.attempts ? r.attempts.map((a, i) => judged(a, ctx, i === r.attempts!.length - 1)) : null;
      const now = samples ? samples[replayed(samples)].text : r.reply;
      sum.turns++;
      if (samples && replayed(samples) > 0) sum.replayedResampled++;
      if (isBad(replyProblems(r.reply, ctx))) sum.returnedBad++;
      if (isBad(replyProblems(now, ctx))) sum.replayedBad++;
      if (fact) {
        sum.asked++;
        if (hit(samples ? samples[0].text : r.reply)) sum.firstHit++;
        if (hit(r.reply)) sum.returnedHit++;
        if (hit(now)) sum.replayedHit++;
        const first = hit(samples ? samples[0].text : r.reply);
        if (first && !hit(r.reply)) sum.lost++;
        if (!first && hit(r.reply)) sum.gained++;
        if (first && !hit(now)) sum.lostNow++;
        if (!first && hit(now)) sum.gainedNow++;
      }
      if (!samples) continue;
      resampled++;
      const first = samples[0];
      byKind.set(kinds(first.problems), (byKind.get(kinds(first.problems)) ?? 0) + 1);
      if (first.problems.some((p) => p.kind === "repetition")) {
        repFirst++;
        if (hit(first.text)) repFirstHit++;
        if (hit(r.reply)) repReturnedHit++;
      }
      lines.push(
        `${r.part} s${r.seed} ${r.mind} "${r.text.slice(0, 50)}"\n` +
          samples.map((s, i) => `    ${i + 1}. [${kinds(s.problems)}${s.stoppedBy ? ` stop:${s.stoppedBy}` : ""}]${hit(s.text) === null ? "" : hit(s.text) ? " ✓" : " ✗"} ${JSON.stringify(s.text.slice(0, 200))}`).join("\n") +
          `\n    returned${hit(r.reply) === null ? "" : hit(r.reply) ? " ✓" : " ✗"}: ${JSON.stringify(r.reply.slice(0, 200))}` +
          (now !== r.reply ? `\n    replayed${hit(now) === null ? "" : hit(now) ? " ✓" : " ✗"}: ${JSON.stringify(now.slice(0, 200))}` : ""),
      );
    }
  }
}
console.log(lines.join("\n"));
console.log(`\nturns ${turns}, resampled ${resampled}; first samples sent back, by what the guard found: ${[...byKind].map(([k, n]) => `${k} ${n}`).join(", ")}`);
console.log(`grounding: first samples ${sum.firstHit}/${sum.asked}, returned (as run) ${sum.returnedHit}/${sum.asked}, returned (replayed with this tree's guard) ${sum.replayedHit}/${sum.asked}`);
console.log(`first sample grounded, returned reply not: as run ${sum.lost}, replayed ${sum.lostNow}; the reverse: as run ${sum.gained}, replayed ${sum.gainedNow}`);
console.log(`hygiene failures returned: as run ${sum.returnedBad}/${sum.turns}, replayed ${sum.replayedBad}/${sum.turns}; turns resampled: as run ${resampled}, replayed ${sum.replayedResampled}`);
console.log(`first samples sent back for repetition: ${repFirst}; grounded ${repFirstHit}; their returned replies grounded ${repReturnedHit}`);
await t.close();
