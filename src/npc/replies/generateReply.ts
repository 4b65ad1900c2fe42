import type { ChatMessage, GenerateRequest, GenerateResult, GenerationBackend } from "../../generation/types.ts";
import { randomSeed } from "../../llm/replyRules.ts";
import { AttemptError } from "../../generation/remote/attemptErrors.ts";
import { leakOf } from "../secrets/secretTerms.ts";
import { replyProblems, type Problem, type ProblemKind, type ReplyContext } from "./detectors.ts";
import { ReplyShaper, type StopWhy } from "./ReplyShaper.ts";
import { splitSentences } from "./sentences.ts";
import { tailSignOf } from "../../llm/tailSign.ts";
import { mergeAvoid, STEER_LOGIT, steerAway } from "./steer.ts";
import { unsupportedQuantity } from "./quantities.ts";
import { misplacedNumber } from "./numberPlaces.ts";
import { misnamed } from "./misnamed.ts";
import { wrongAttribution } from "./attribution.ts";
import { offTopicRecital } from "./recitedLine.ts";

/** What sends a reply back for another sample, and how bad each is when choosing between two (lower is better). */
const WEIGHT: Partial<Record<ProblemKind, number>> = {
  empty: 10,
  secretLeak: 8,
  echo: 6,
  promptEcho: 6,
  meta: 5,
  exampleCopy: 5,
  wrongPerson: 5,
  roleLabel: 4,
  repeatsPrevious: 3,
  repetition: 2,
  // A made-up number reads as a fact and may be wrong, but it is said in character: the least bad of them.
  unsupportedQuantity: 1,
  // A fact told of the wrong person: the same, a reply in character that may be wrong.
  wrongAttribution: 1,
  // A lore line said where it does not answer: in character and true, only beside the question.
  offTopicRecital: 1,
  // A known name said wrong ("Rupert Crane" for Tobias Crane): in character, one word wrong.
  misnamed: 1,
};

/** Made-up facts (a number, a person) and recitals rather than slips of character: each sends a reply back once a turn. */
const ONCE_A_TURN = new Set<ProblemKind>(["unsupportedQuantity", "wrongAttribution", "offTopicRecital", "misnamed"]);

/**
 * How the guard samples again while nothing of the reply was sent (bench/quality.ts, BENCHMARKS.md "Temperature,
 * more tries, second person"): up to `tries` samples, a next one only while the rejected ones together cost fewer
 * tokens than `budgetShare` of the reply cap (a sample stopped early costs a few tokens, one judged at its end the
 * whole reply), and every sample after the first at most `resampleTemperature`.
 */
export interface GuardPolicy {
  tries: number;
  budgetShare: number;
  /** null: the turn's own temperature */
  resampleTemperature: number | null;
  /**
   * Each resample's tokens biased away from what the samples before it did wrong (steer.ts: the player's line after
   * an echo, an assistant's words after its voice, the prompt's after a recital), by this logit; null: the next seed alone.
   */
  steerLogit?: number | null;
  /** every steered resample also pushed away from an assistant's refusal (steer.ts REFUSAL_WORDS), whatever failed */
  steerRefusals?: boolean;
  /**
   * a finished sample that states a number its prompt does not hold (quantities.ts) is sampled again, once a turn:
   * when the next one states one too, the least bad of them is returned
   */
  checkQuantities?: boolean;
  /**
   * a finished sample that tells a fact of one of the people the mind knows where its prompt tells it of someone else
   * (attribution.ts) is sampled again, once a turn, as a made-up number is
   */
  checkAttributions?: boolean;
  /**
   * a finished sample that states a number its prompt gives only for something else, while the prompt's sentences on
   * what the sample speaks of give another (numberPlaces.ts: "The tower has 10 steps." beside "the tower's hundred
   * and four steps" and "ten years later"), is sampled again once a turn, as a made-up number is
   */
  checkNumberPlaces?: boolean;
  /**
   * a finished sample that gives a name of its prompt with one word made up ("Rupert Crane" for Tobias Crane,
   * "Gallowby Wood" for Fallowby Wood; misnamed.ts) is sampled again once a turn, steered from the made-up word
   */
  checkNames?: boolean;
  /**
   * a sample that closes what it said with an assistant's offer of help ("Hi Rosalind Tey! How can I assist you
   * today?") ends before the offer (offerCut.ts) and is judged on what stood before it, as a loop in its tail is cut
   */
  cutOffers?: boolean;
  /**
   * a finished sample that recites a lore sentence sharing no key word of the player's question, while another lore
   * sentence shares one (recitedLine.ts), is sampled again once a turn, steered away from the recited sentence's words
   */
  checkRecitals?: boolean;
}

/**
 * Up to three samples at the turn's temperature, each resample steered away from what the ones before it did wrong.
 * Measured on the tuning worlds' small-talk lines (bench/steer.ts, BENCHMARKS.md "Replies in character: the guard
 * steers its resamples"): a resample that is only the next seed tends to go wrong the same way as the first (the
 * player's introduction echoed by every seed), and more of them, or cooler ones ("Temperature, more tries, second
 * person"), did not help; a resample that cannot easily copy the failed words does. Worst case: three samples (four
 * when the reply to return tells a secret), most of the rejected ones stopped within their first words. Every
 * resample is also steered away from an assistant's refusal (steer.ts REFUSAL_WORDS), which is what Qwen turns a
 * blocked copy into: on a newcomer's greeting to each tuning mind (bench/steer.ts --lines greetings, 72 turns) that
 * halved the refusals returned (20 → 10; 10 turns better, none worse, same seeds) at fewer samples per reply.
 * A finished sample that states a number nothing in its prompt holds ("35 miles" for a note's "a day and a half")
 * is drawn again once a turn (bench/quantityCheck.ts, BENCHMARKS.md "Replies in character: made-up numbers"), and so
 * is one that states a number its prompt gives only for something else ("The tower has 10 steps." where the tower's
 * note gives 104 and another note "ten years"; numberPlaces.ts, BENCHMARKS.md "Replies in character: numbers given
 * for something else"). A
 * sample that closes with an assistant's offer of help is cut before it rather than resampled (offerCut.ts): the
 * held-out greeting drew "Hi Rosalind Tey! How can I assist you today?" from every sample of every seed, steered or
 * not, and now returns "Hi Rosalind Tey!" (BENCHMARKS.md "Replies in character: an assistant's offer of help cut off").
 * A sample that tells a fact of the wrong person ("Tibor Haska is the bathhouse healer.") is drawn again once a turn
 * too (attribution.ts; BENCHMARKS.md "Replies in character: wrong attributions (Qwen)"), and so is one that gives a
 * known name with a word of it made up ("Rupert Crane" for Tobias Crane; misnamed.ts, BENCHMARKS.md "Replies in
 * character: a known name said wrong (Qwen)"). So is one that recites a lore sentence beside the question while another
 * sentence of its notes is closer to it (recitedLine.ts; BENCHMARKS.md "Replies in character: recited lines (Qwen)"
 * and "… recited lines checked by default, numbers read with their units …"): first off, since it read a two-word
 * answer ("Mabry Solk.") as no sentence of the reply's own; with that mended it won answers on the tuning worlds and
 * the held-out world, and lost none.
 */
export const GUARD_POLICY: GuardPolicy = {
  tries: 3,
  budgetShare: 1,
  resampleTemperature: null,
  steerLogit: STEER_LOGIT,
  steerRefusals: true,
  checkQuantities: true,
  checkNumberPlaces: true,
  checkNames: true,
  checkAttributions: true,
  cutOffers: true,
  checkRecitals: true,
};

export interface AttemptReport {
  attempt: number;
  seed: number;
  temperature: number;
  problems: Problem[];
  /** judged on its opening and stopped before anything was sent */
  early: boolean;
  stoppedBy: StopWhy | null;
  /** the words this sample was steered away from (the samples before it did wrong with them); absent for a first sample */
  avoided?: string[];
}

/** The reply guard's account of a turn (the playground's trace shows it; /metrics counts it). */
export interface ReplyGuardReport {
  attempts: AttemptReport[];
  /** 1-based: the attempt whose text was returned */
  chosen: number;
  /** why the returned reply ended early, if it did: its sentence limit, a loop, the cap nearing */
  stoppedBy: StopWhy | null;
  /** sentences dropped from the returned reply because they told a secret */
  redacted: number;
}

/** What the guard knows of the turn: what replies are checked against, and the prompt without its secrets. */
export interface TurnGuard {
  context: ReplyContext;
  /** the prompt without the mind's kept secrets: a reply that told one is sampled again from it */
  withoutSecrets?: () => ChatMessage[];
}

export interface GuardedReply {
  result: GenerateResult;
  report: ReplyGuardReport;
}

interface Done {
  report: AttemptReport;
  result: GenerateResult;
  startMs: number;
  /** characters of it the client was sent while it streamed */
  sent: number;
}

/**
 * One NPC reply with the reply guard: the words are shaped as they stream (ReplyShaper: the opening held until
 * judged, the sentence limit, the cap, loops), checked when done (detectors.ts), and a reply that echoes the
 * player, talks about its notes, carries a role label, recites the prompt, speaks as someone else, tells a secret,
 * repeats itself or says nothing is sampled again with the next seed when nothing of it reached the client
 * (GuardPolicy: how often, and how cool); the least bad is returned, without any sentence that tells a secret when others remain
 * (and when the reply to return tells one, a last sample from the prompt without the secrets is drawn and returned instead). Never for
 * grammar-constrained generation or greedy sampling (a resample would repeat it).
 */
export async function generateReply(
  llm: Pick<GenerationBackend, "generate">,
  req: GenerateRequest,
  turn: TurnGuard | ReplyContext,
  policy: GuardPolicy = GUARD_POLICY,
): Promise<GuardedReply> {
  const { context, withoutSecrets } = "context" in turn ? turn : { context: turn, withoutSecrets: undefined };
  const streaming = !!req.onToken;
  const temperature = req.temperature ?? 0.7;
  const guard = !req.jsonSchema && temperature > 0;
  const maxAttempts = guard ? Math.max(1, policy.tries) : 1;
  const budget = Math.max(1, Math.round(policy.budgetShare * req.maxTokens));
  const baseSeed = req.seed ?? randomSeed();
  const startedAt = performance.now();
  const done: Done[] = [];
  const tail = req.tail ? tailSignOf(req.tail) : undefined;
  let evaluated = 0;
  let completion = 0;
  let messages = req.messages;
  /** tokens the rejected samples cost */
  let spent = 0;
  /** the samples drawn from the prompt without the secrets (none until one told a secret) */
  let secretFree = false;
  /** what the next sample is steered away from (the failed samples' words) */
  let avoid = req.avoid;
  /** the once-a-turn problems (a made-up number or person, a recital) a sample was already drawn again for */
  const retried = new Set<ProblemKind>();
  // One sample more than the policy's when the reply to return still tells a secret: it comes from the prompt
  // without the secrets (what the model does not see it cannot tell), whatever made the others fail.
  const secretTry = guard && !!withoutSecrets;
  for (let attempt = 1; attempt <= maxAttempts + (secretTry ? 1 : 0); attempt++) {
    const extra = attempt > maxAttempts;
    if (extra) {
      const pick = done.length ? done[choose(done, streaming)] : null;
      if (!pick || secretFree || pick.sent > 0 || !tellsSecret(pick)) break;
      messages = withoutSecrets!();
      secretFree = true;
    }
    const last = attempt >= maxAttempts || (attempt > 2 && spent >= budget);
    const cooler = attempt > 1 && policy.resampleTemperature !== null ? Math.min(temperature, policy.resampleTemperature) : temperature;
    const shaper = new ReplyShaper({ context, maxTokens: req.maxTokens, judgeOpening: guard && !last, streaming, tail, cutOffers: !!policy.cutOffers });
    const stop = new AbortController();
    const seed = baseSeed + attempt - 1;
    const startMs = performance.now() - startedAt;
    let result: GenerateResult;
    try {
      result = await llm.generate({
        ...req,
        messages,
        seed,
        temperature: cooler,
        ...(avoid ? { avoid } : {}),
        stopSignal: stop.signal,
        timings: attempt === 1 ? req.timings : undefined,
        onToken: (piece) => {
          const r = shaper.push(piece);
          if (r.emit) req.onToken?.(r.emit);
          if (r.stop) stop.abort();
        },
      });
    } catch (e) {
      // A remote backend that failed mid-reply is not retried once pieces reached its caller (here, the shaper):
      // when none reached the client, the guard tries once more, as the pool would have.
      if (!last && e instanceof AttemptError && e.streamed && shaper.sentChars === 0 && !req.signal?.aborted) continue;
      throw e;
    }
    evaluated += result.evaluatedPromptTokens;
    completion += result.completionTokens;
    const sent = shaper.sentChars;
    const ended = result.finishReason === "abort" || result.finishReason === "timeout";
    const { text } = shaper.finish(result.text, ended ? "length" : result.finishReason);
    const problems = ended ? [] : shaper.failure ? [shaper.failure] : replyProblems(text, context).filter((p) => WEIGHT[p.kind] !== undefined);
    // Judged on the finished sample only: "three" may still become "three hundred".
    const quantity = guard && policy.checkQuantities && !ended && !shaper.failure && context.givenNumbers ? unsupportedQuantity(text, context.givenNumbers) : null;
    const misplaced = !quantity && guard && policy.checkNumberPlaces && !ended && !shaper.failure && context.numberPlaces ? misplacedNumber(text, context.numberPlaces.sources(), context.numberPlaces.said, context.playerLine) : null;
    if (quantity || misplaced) problems.push({ kind: "unsupportedQuantity", detail: (quantity ?? misplaced)! });
    const person = guard && policy.checkAttributions && !ended && !shaper.failure && context.attribution ? wrongAttribution(text, context.attribution) : null;
    if (person) problems.push({ kind: "wrongAttribution", detail: person });
    const name = guard && policy.checkNames && !ended && !shaper.failure && context.names ? misnamed(text, context.names()) : null;
    if (name) problems.push({ kind: "misnamed", detail: name.detail });
    const recital = guard && policy.checkRecitals && !ended && !shaper.failure && context.loreLines ? offTopicRecital(text, context.playerLine, context.loreLines) : null;
    if (recital) problems.push({ kind: "offTopicRecital", detail: `"${recital.replaceAll('"', "'")}"` });
    // A made-up number or person, or a recital, alone sends the reply back once a turn each; after that, the next such sample is
    // returned as it is.
    const hard = problems.some((p) => !ONCE_A_TURN.has(p.kind));
    const fresh = problems.filter((p) => ONCE_A_TURN.has(p.kind) && !retried.has(p.kind));
    const again = hard || fresh.length > 0;
    if (!hard) for (const p of fresh) retried.add(p.kind);
    const avoided = avoid?.length ? [...new Set(avoid.map((a) => a.text.trim().toLowerCase()))] : undefined;
    done.push({ report: { attempt, seed, temperature: cooler, problems, early: !!shaper.failure, stoppedBy: shaper.stopWhy, ...(avoided ? { avoided } : {}) }, result: { ...result, text }, startMs, sent });
    // Clean, cut short, or the client already has part of it: this is the reply (after the last try, see above).
    if (extra || !again || ended || (streaming && sent > 0)) break;
    if (last) {
      attempt = maxAttempts; // the policy's samples are spent: only the secret's extra one may follow
      continue;
    }
    spent += result.completionTokens;
    if (policy.steerLogit != null) avoid = mergeAvoid(avoid, steerAway(problems, context, policy.steerLogit, !!policy.steerRefusals));
    // A reply that told a secret is sampled again from the prompt without it: what is not seen cannot be told.
    if (withoutSecrets && !secretFree && problems.some((p) => p.kind === "secretLeak")) [messages, secretFree] = [withoutSecrets(), true];
  }
  const pick = done[choose(done, streaming)];
  let text = pick.result.text;
  let redacted = 0;
  if (pick.sent === 0 && pick.report.problems.some((p) => p.kind === "secretLeak")) [text, redacted] = redact(text, context);
  // The rest of the chosen reply (all of it, unless it streamed as it went).
  if (streaming && text.length > pick.sent && pick.result.finishReason !== "abort") req.onToken!(text.slice(pick.sent));
  const result: GenerateResult = {
    ...pick.result,
    text,
    evaluatedPromptTokens: evaluated,
    completionTokens: completion,
    // What a waiting client sees: the chosen attempt's first token, after the attempts before it.
    timeToFirstTokenMs: pick.startMs + pick.result.timeToFirstTokenMs,
  };
  return { result, report: { attempts: done.map((d) => d.report), chosen: pick.report.attempt, stoppedBy: pick.report.stoppedBy, redacted } };
}

function tellsSecret(d: Done): boolean {
  return d.report.problems.some((p) => p.kind === "secretLeak");
}

/**
 * The attempt to return: the one a streaming client was sent, else the least bad (an early stop has no text). The
 * worst are a reply that tells a secret, then one that parrots the player: either is returned only when every
 * candidate is one (a player who hears their own line back, or a secret told, notices at once; a reply that talks
 * about its notes or speaks of itself in the third person reads as a slip). Among the rest, the problems' weights.
 */
function choose(done: Done[], streaming: boolean): number {
  const sentOne = done.findIndex((d) => d.sent > 0);
  if (streaming && sentOne >= 0) return sentOne;
  const usable = done.filter((d) => !d.report.early);
  const discreet = usable.some((d) => !tellsSecret(d));
  const fresh = usable.some((d) => !tellsSecret(d) && !echoes(d) && d.result.text.trim() !== "");
  let best = done.length - 1;
  let bestScore = Number.POSITIVE_INFINITY;
  done.forEach((d, i) => {
    const score = d.report.early
      ? 1000
      : (discreet && tellsSecret(d) ? 500 : 0) + (fresh && echoes(d) ? 250 : 0) + d.report.problems.reduce((n, p) => n + (WEIGHT[p.kind] ?? 0), 0);
    if (score < bestScore) [best, bestScore] = [i, score];
  });
  return best;
}

function echoes(d: Done): boolean {
  return d.report.problems.some((p) => p.kind === "echo");
}

/** The reply without the sentences that tell a secret, when any other remains. */
function redact(text: string, context: ReplyContext): [string, number] {
  const sentences = splitSentences(text);
  const keep = sentences.filter((s) => leakOf(s, context.secrets) === null);
  if (keep.length === 0 || keep.length === sentences.length) return [text, 0];
  return [keep.join(" "), sentences.length - keep.length];
}
