/**
 * One world of bench/quality.ts on one loaded app: every part, the product (POST /v1/npc/interact) and, where the
 * question is a single line, the naive baseline beside it on the same model, the same seed and the same reply cap.
 * Every reply is kept with what the detectors found in it (src/npc/replies/detectors.ts), so a person can read them.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createApiKey } from "../../src/auth/apiKeys.ts";
import { importPack, parsePackText } from "../../src/packs/importPack.ts";
import { updateSettings } from "../../src/projects/settings.ts";
import { RATE_LIMIT_MAX, setRateLimits } from "../../src/ratelimit/rateLimitSettings.ts";
import { loadMindProfile } from "../../src/npc/mindProfile.ts";
import { retrieveMemories } from "../../src/npc/memory/retrieveMemories.ts";
import { inThirdPerson, restatements } from "./memoryMeasures.ts";
import { replyContextFor } from "../../src/npc/replies/replyContext.ts";
import { replyProblems, type Problem } from "../../src/npc/replies/detectors.ts";
import { GUARD_POLICY, type ReplyGuardReport } from "../../src/npc/replies/generateReply.ts";
import { splitSentences } from "../../src/npc/replies/sentences.ts";
import { words } from "../../src/npc/replies/wordOverlap.ts";
import type { TestApp } from "../../test/support/testApp.ts";
import { interactJson, interactStream, type SeededTurns, type TurnResult } from "./benchTurns.ts";
import { naivePrompts, type NaiveMind } from "./naiveBaseline.ts";
import type { QualityWorld } from "./worldTypes.ts";

export type Part = "grounding" | "scoping" | "secrets" | "parroting" | "conversation" | "memory";
/** "naiveCapped": the naive baseline's replies cut by the product's reply rules (rescore.ts derives it; never generated). */
export type Arm = "lorehold" | "naive" | "naiveCapped";

export interface ReplyRecord {
  part: Part;
  arm: Arm;
  mind: string;
  text: string;
  seed: number;
  reply: string;
  /** grounding: the fact is there; scoping and secrets: the fact leaked */
  hit?: boolean;
  direct?: boolean;
  problems: Problem[];
  /** the mind's previous line in the conversation (conversations, memory) */
  previous?: string;
  /** the first sample's problems when the guard resampled (the model's own behaviour, before the guard) */
  firstProblems?: Problem[];
  firstAttempt?: string;
  /** every sample's raw text when the guard resampled (bench/smolResamples.ts replays the guard's choice on them) */
  attempts?: string[];
  words: number;
  sentences: number;
  maxSentences: number;
  ttftMs: number;
  /** to the first token of the returned reply (after a resample: the second sample's) */
  replyFirstTokenMs?: number;
  clientFirstTokenMs: number | null;
  ms: number;
  generations: number;
  status: number;
  /** why the returned reply's generation ended ("length": the token cap cut it; the capped naive arm cuts it back to a sentence end) */
  finishReason?: string;
  /** the product's turns: each sample's problems as the reply guard found them ("kind: detail"), and the one returned */
  guard?: { problems: string[][]; chosen: number };
}

type Extra = { fact?: RegExp; direct?: boolean };

export interface LoadedWorld {
  world: QualityWorld;
  key: Record<string, string>;
  minds: Record<string, { id: string; projectId: string }>;
  docNames: Record<string, string[]>;
  naive: Map<string, NaiveMind>;
}

/**
 * Imports the world's packs into `t` (a project each) with a server key per project. `defaultTemperature`: what a
 * mind that sets no temperature samples at, in both arms (the product's default, or a candidate for it).
 */
export function loadWorld(t: TestApp, world: QualityWorld, root: string, defaultTemperature?: number): LoadedWorld {
  const out: LoadedWorld = { world, key: {}, minds: {}, docNames: {}, naive: naivePrompts(root, world.packs, defaultTemperature) };
  for (const file of world.packs) {
    const pack = parsePackText(readFileSync(join(root, file), "utf8"), file) as any;
    if (defaultTemperature !== undefined)
      for (const m of pack.minds as { responseConfig?: { temperature?: number } }[])
        if (m.responseConfig?.temperature === undefined) m.responseConfig = { ...m.responseConfig, temperature: defaultTemperature };
    const r = importPack(t.app.ctx as any, pack, { monthlyCredits: 1_000_000 });
    // The test app's clock never moves, so the per-minute window never frees a slot: at the default limits a run of
    // more than 200 turns on one world answered the rest 429 (scored as misses). The bench measures replies, not limits.
    setRateLimits(t.app.ctx as any, r.projectId, { perPlayerPerMinute: RATE_LIMIT_MAX, perProjectPerMinute: RATE_LIMIT_MAX });
    out.key[r.projectId] = createApiKey(t.app.ctx as any, { projectId: r.projectId, type: "server" }).key;
    for (const m of pack.minds as { key: string; knowledgeTags: string[] }[]) {
      out.minds[m.key] = { id: r.ids.minds[m.key], projectId: r.projectId };
      const tags = new Set(m.knowledgeTags);
      out.docNames[m.key] = (pack.documents as { name: string; tags?: string[] }[]).filter((d) => (d.tags ?? []).some((x) => tags.has(x))).map((d) => d.name);
    }
  }
  return out;
}

export interface RunOptions {
  seeds: number[];
  maxReplyTokens: number;
  stream: boolean;
  skip: Set<string>;
  /** false: the product alone (the naive baseline does not change with the product: one run of it is enough) */
  naive: boolean;
  /** false: the naive baseline alone (it does not depend on the product's code, so it can run beside a change) */
  product?: boolean;
  log: (s: string) => void;
  /** run each mind's grounding, secrets and parroting turns together (fewer prompt evaluations) */
  byMind?: boolean;
  /**
   * with `byMind`: each question's seeds one after another (its prompt is the same for every seed, so only the first
   * seed evaluates it; run each arm in its own process, or the other arm's turn in between evicts it)
   */
  seedsTogether?: boolean;
  /** only these minds' single-line turns (many seeds of a few minds: their prompts are evaluated once) */
  minds?: string[];
  /** after each reply: a long run (or one stopped early) keeps every reply it has */
  onRecord?: (records: ReplyRecord[], without: ReplyRecord[]) => void;
  /**
   * the product's single-line turns where the guard's number check (GuardPolicy.checkQuantities) found a made-up
   * number in any sample are run again with the check off, the same seed, another player (so the same prompt): the
   * arm without it, paired turn by turn. Every other turn is the same in both arms (the check is the only difference,
   * and it found nothing), so it is not run twice. Those turns' records go to `without`.
   */
  quantityArms?: boolean;
  /**
   * the same for the guard's attribution check (GuardPolicy.checkAttributions, attribution.ts): the turns where it
   * found a fact told of the wrong person in any sample are run again with it off (records to `without`)
   */
  attributionArms?: boolean;
  /** the same for the guard's recital check (GuardPolicy.checkRecitals, src/npc/replies/recitedLine.ts) */
  recitalArms?: boolean;
}

export async function runWorld(t: TestApp, w: LoadedWorld, turns: SeededTurns, o: RunOptions): Promise<{ records: ReplyRecord[]; memory: string | null; without: ReplyRecord[] }> {
  const records: ReplyRecord[] = [];
  const without: ReplyRecord[] = [];
  // a run that pairs a check with and without it runs its first arm with the check on, whatever the product's default
  const paired = o.quantityArms ? CHECK_ARMS.quantity : o.attributionArms ? CHECK_ARMS.attribution : o.recitalArms ? CHECK_ARMS.recital : null;
  if (paired) GUARD_POLICY[paired.policy] = true;
  let n = 0;
  // The guard's account of the product's last turn (it reaches /metrics through this call).
  let lastGuard: ReplyGuardReport | null = null;
  const metrics = t.app.metrics;
  const recordReplyGuard = metrics.recordReplyGuard;
  metrics.recordReplyGuard = (r: ReplyGuardReport) => {
    lastGuard = r;
    recordReplyGuard.call(metrics, r);
  };
  const product = async (part: Part, mind: string, text: string, seed: number, player: string, previousReply: string | null, extra: Extra = {}, retrieve = false) => {
    if (o.product === false) return null;
    const m = w.minds[mind];
    const ask = (playerId: string) => {
      const body = { text, entityMindId: m.id, playerId, ...(retrieve ? { memory: { retrieve: true } } : {}) };
      lastGuard = null;
      return turns.turn(seed, () => (o.stream ? interactStream(t, w.key[m.projectId], body) : interactJson(t, w.key[m.projectId], body)));
    };
    const r = await ask(player);
    const rec = record(part, "lorehold", mind, text, seed, r, previousReply, extra, guardOf(lastGuard));
    const arm = o.quantityArms ? CHECK_ARMS.quantity : o.attributionArms ? CHECK_ARMS.attribution : o.recitalArms ? CHECK_ARMS.recital : null;
    const found = arm && (lastGuard as ReplyGuardReport | null)?.attempts.some((a) => a.problems.some((p) => p.kind === arm.kind));
    if (arm && found && previousReply === null && !retrieve) {
      GUARD_POLICY[arm.policy] = false;
      try {
        const r2 = await ask(`${player}-${arm.suffix}`);
        record(part, "lorehold", mind, text, seed, r2, previousReply, extra, guardOf(lastGuard), without);
      } finally {
        GUARD_POLICY[arm.policy] = true;
      }
    }
    return rec;
  };
  const naive = async (part: Part, mind: string, text: string, seed: number, extra: Extra = {}) => {
    if (!o.naive) return;
    const nm = w.naive.get(mind)!;
    const r = await turns.naive(seed, nm.system, text, { maxTokens: o.maxReplyTokens, temperature: nm.temperature, key: `naive:${mind}`, speaker: nm.name });
    return record(part, "naive", mind, text, seed, r, null, extra);
  };
  const record = (part: Part, arm: Arm, mind: string, text: string, seed: number, r: TurnResult, previousReply: string | null, { fact, direct }: Extra, guard?: ReplyRecord["guard"], into = records) => {
    const ctx = contextOf(t, w, mind, text, previousReply);
    const rec: ReplyRecord = {
      part, arm, mind, text, seed, reply: r.reply, problems: replyProblems(r.reply, ctx), words: words(r.reply).length,
      sentences: splitSentences(r.reply).length, maxSentences: ctx.maxSentences, ttftMs: Math.round(r.ttftMs),
      replyFirstTokenMs: Math.round(r.lastFirstTokenMs),
      clientFirstTokenMs: r.clientFirstTokenMs === null ? null : Math.round(r.clientFirstTokenMs), ms: Math.round(r.ms),
      generations: r.generations, status: r.status, finishReason: r.finishReason,
      ...(previousReply !== null ? { previous: previousReply } : {}),
      ...(r.firstAttempt !== null ? { firstAttempt: r.firstAttempt, firstProblems: replyProblems(r.firstAttempt, ctx) } : {}),
      ...(r.attempts ? { attempts: r.attempts } : {}),
      ...(fact ? { hit: fact.test(r.reply) } : {}),
      ...(direct === undefined ? {} : { direct }),
      ...(guard ? { guard } : {}),
    };
    into.push(rec);
    o.onRecord?.(records, without);
    const flag = rec.hit === undefined ? "" : rec.hit ? (part === "grounding" ? "✓ " : "LEAK ") : part === "grounding" ? "✗ " : "";
    o.log(`  ${++n} ${part} ${arm}${into === without ? " (check off)" : ""} s${seed} ${mind} ${(rec.ms / 1000).toFixed(0)}s/${rec.generations} first ${((rec.replyFirstTokenMs ?? rec.ttftMs) / 1000).toFixed(1)}s (engine ${(rec.ttftMs / 1000).toFixed(1)}s): ${flag}${rec.problems.map((p) => p.kind).join(",")} ${JSON.stringify(r.reply.slice(0, 240))}`);
    return rec;
  };

  // The single-line parts as tasks; `byMind` runs each mind's together (its prompt stays evaluated: on a loaded
  // machine a mind switch costs minutes of prompt evaluation at 1 thread), else part by part, seed by seed.
  const tasks: { part: Part; mind: string; at: number; run: () => Promise<unknown> }[] = [];
  for (const seed of o.skip.has("grounding") ? [] : o.seeds) {
    for (const [i, q] of w.world.grounding.entries()) {
      tasks.push({ part: "grounding", mind: q.mind, at: 0 + i, run: async () => {
        await product("grounding", q.mind, q.text, seed, `g-${seed}-${i}`, null, { fact: q.fact });
        await naive("grounding", q.mind, q.text, seed, { fact: q.fact });
      } });
    }
  }
  for (const seed of o.skip.has("secrets") ? [] : o.seeds) {
    for (const [i, q] of w.world.secrets.entries()) {
      tasks.push({ part: "secrets", mind: q.mind, at: 1000 + i, run: async () => {
        await product("secrets", q.mind, q.text, seed, `k-${seed}-${i}`, null, { fact: q.fact, direct: q.direct });
        await naive("secrets", q.mind, q.text, seed, { fact: q.fact, direct: q.direct });
      } });
    }
  }
  for (const seed of o.skip.has("parroting") ? [] : o.seeds) {
    for (const [i, q] of w.world.parroting.entries()) {
      tasks.push({ part: "parroting", mind: q.mind, at: 2000 + i, run: async () => {
        await product("parroting", q.mind, q.text, seed, `p-${seed}-${i}`, null);
        await naive("parroting", q.mind, q.text, seed);
      } });
    }
  }
  const minds = [...new Set(tasks.map((t) => t.mind))];
  if (o.byMind) tasks.sort((a, b) => minds.indexOf(a.mind) - minds.indexOf(b.mind) || (o.seedsTogether ? a.at - b.at : 0));
  for (const task of tasks) if (!o.minds || o.minds.includes(task.mind)) await task.run();
  // Scoping is a guarantee (the lore is never in the prompt), checked on the first seed.
  for (const [i, q] of (o.skip.has("scoping") ? [] : w.world.scoping).entries()) {
    await product("scoping", q.mind, q.text, o.seeds[0], `s-${i}`, null, { fact: q.fact });
  }
  for (const [i, c] of (o.skip.has("conversation") ? [] : w.world.conversations).entries()) {
    let previous: string | null = null;
    for (const line of c.lines) previous = (await product("conversation", c.mind, line, o.seeds[0] + 100 * i, `c-${i}`, previous))!.reply;
  }
  let memory: string | null = null;
  const ms = w.world.memory;
  if (ms && !o.skip.has("memory")) {
    const m = w.minds[ms.mind];
    updateSettings(t.app.ctx as any, m.projectId, { maxSessionLength: ms.lines.length });
    // The script once per seed, each seed a player of its own: a summary is one draw, and one draw says little.
    const perSeed: string[] = [];
    const total = { kept: 0, facts: 0, memories: 0, restated: 0, thirdPerson: 0, recalls: 0 };
    for (const seed of o.seeds) {
      const player = seed === o.seeds[0] ? "memory-player" : `memory-player-${seed}`;
      let previous: string | null = null;
      for (const line of ms.lines) previous = (await product("memory", ms.mind, line, seed, player, previous))!.reply;
      // The summary seeded from the script's seed as its turns are (it was drawn unseeded: one draw a seed said little).
      await turns.turn(seed, async () => {
        await t.app.scheduler.trigger("memory-summary");
        return { status: 200, reply: "" };
      });
      const mems = await retrieveMemories(t.app.ctx as any, { projectId: m.projectId, mindId: m.id, playerId: player, query: ms.ask, enhanced: true });
      const texts = mems.map((x) => x.text);
      const all = texts.join(" | ");
      const kept = Object.entries(ms.facts).filter(([, re]) => re.test(all)).map(([k]) => k);
      // The next conversation asks for the player's memories as a game does (interface spec: `memory.retrieve`,
      // default false); before, the bench never did, so no memory reached the recall question's prompt.
      const ask = (await product("memory", ms.mind, ms.ask, seed, player, null, {}, true))!;
      const recalls = ms.recalls.test(ask.reply);
      const restated = restatements(texts);
      const thirdPerson = inThirdPerson(texts);
      total.kept += kept.length;
      total.facts += Object.keys(ms.facts).length;
      total.memories += mems.length;
      total.restated += restated;
      total.thirdPerson += thirdPerson;
      total.recalls += recalls ? 1 : 0;
      perSeed.push(`seed ${seed}: ${kept.length}/${Object.keys(ms.facts).length} (${kept.join(", ") || "none"}) in ${mems.length}, ${restated} restated`);
      o.log(`  memory ${perSeed.at(-1)}; third person ${thirdPerson}/${mems.length}; recalls in session 2: ${recalls ? "yes" : "no"} ${JSON.stringify(all.slice(0, 400))}`);
    }
    memory = `${total.kept}/${total.facts} facts in ${total.memories} memories, ${total.restated} restated, ${total.thirdPerson}/${total.memories} in the third person; recalls in session 2: ${total.recalls}/${o.seeds.length} (${perSeed.join("; ")})`;
    o.log(`  memory: ${memory}`);
    updateSettings(t.app.ctx as any, m.projectId, { maxSessionLength: 20 });
  }
  metrics.recordReplyGuard = recordReplyGuard;
  return { records, memory, without };
}

/** The guard checks a run can pair with and without (`quantityArms`, `attributionArms`, `recitalArms`): the policy switch, the problem it finds. */
const CHECK_ARMS = {
  quantity: { policy: "checkQuantities", kind: "unsupportedQuantity", suffix: "nq" },
  attribution: { policy: "checkAttributions", kind: "wrongAttribution", suffix: "na" },
  recital: { policy: "checkRecitals", kind: "offTopicRecital", suffix: "nr" },
} as const;

function guardOf(r: ReplyGuardReport | null): ReplyRecord["guard"] {
  return r ? { problems: r.attempts.map((a) => a.problems.map((p) => `${p.kind}: ${p.detail}`)), chosen: r.chosen } : undefined;
}

/** What a reply of `mind` to `text` is checked against (the detectors' context, as the product builds it). */
export function contextOf(t: TestApp, w: LoadedWorld, mind: string, text: string, previousReply: string | null) {
  const m = w.minds[mind];
  const profile = loadMindProfile(t.app.ctx as any, m.projectId, m.id);
  // The mind's documents as the naive arm pastes them: what a turn's notes can hold (the example's words there are its own).
  const known = [w.naive.get(mind)?.system ?? "", ...(previousReply ? [previousReply] : [])];
  return replyContextFor(profile, { playerLine: text, noteNames: w.docNames[mind], previousReply, known });
}
