import type { FinishReason } from "../../llm/types.ts";
import type { Problem, ReplyContext } from "./detectors.ts";
import { nameForms } from "./detectors.ts";
import { earlyProblem, earlyVerdict, HOLD_MAX_CHARS, riskyOpenings } from "./earlyVerdict.ts";
import { words } from "./wordOverlap.ts";
import { loopCut, mayRepeat } from "./loopCut.ts";
import { mayOffer, offerCut } from "./offerCut.ts";
import { capSentences, cutAtLastSentence, sentenceEnds } from "./sentences.ts";
import { leakOf } from "../secrets/secretTerms.ts";
import { tailSignAt, type TailSign } from "../../llm/tailSign.ts";

/** Tokens before the reply cap from which a reply ends at its next sentence end (and holds back what follows its last one). */
export const NEAR_CAP_TOKENS = 12;

export type StopWhy = "sentences" | "loop" | "cap" | "secret" | "tail" | "offer" | "fail";

export interface ShaperOptions {
  context: ReplyContext;
  maxTokens: number;
  /** judge the opening before any of it is sent (a reply the guard may still resample) */
  judgeOpening: boolean;
  /** a client receives the pieces: what was sent can no longer be cut off */
  streaming: boolean;
  /** a typed turn: the words end where the model starts writing the tail itself (llm/tailSign.ts) */
  tail?: TailSign;
  /** end the reply before an assistant's offer of help that follows what it said (offerCut.ts) */
  cutOffers?: boolean;
}

/**
 * One attempt's text as it streams: what may be sent to the client now, and when the reply should end. It holds
 * the opening until it is judged (earlyVerdict.ts), ends the reply at the end of the sentence that reaches the
 * mind's sentence limit, at the next sentence end once the token cap nears, and where it starts repeating itself.
 * In a typed turn it ends the words where the model starts writing the tail into them, and holds back what may be
 * the start of one. The client is only ever sent a prefix of the final text, and never a trailing space.
 */
export class ReplyShaper {
  stopWhy: StopWhy | null = null;
  failure: Problem | null = null;
  private raw = "";
  private pieces = 0;
  private sent = 0;
  private cutAt: number | null = null;
  private judged: boolean;
  private nearFrom: number | null = null;
  /** sentences already checked for a told secret */
  private checked = 0;
  /** characters of the text whose sentences the guard judged while nothing had been sent */
  private judgedTo = 0;
  /** characters of complete words checked for give-away phrases */
  private wordsJudged = 0;
  private readonly openings: string[][];
  private readonly ownLabel: RegExp;

  constructor(private readonly o: ShaperOptions) {
    this.judged = false;
    // An attempt that will not be resampled is not judged, but still holds what may be its own speaker label.
    this.openings = o.judgeOpening ? riskyOpenings(o.context) : nameForms(o.context.mindName).map((n) => words(`${n}:`));
    this.ownLabel = ownLabelPattern(o.context.mindName);
  }

  /** Characters the client was sent. */
  get sentChars(): number {
    return this.sent;
  }

  /** One piece from the backend: what to send now, and whether the reply should end here. */
  push(piece: string): { emit: string; stop: boolean } {
    if (this.stopWhy) return { emit: "", stop: true };
    this.raw += piece;
    this.pieces++;
    const { text, tail, offer } = this.spoken(this.raw);
    if (!this.judged) {
      const v = this.o.judgeOpening ? earlyVerdict(text, this.o.context, this.openings) : labelVerdict(text, this.openings);
      if (v.kind === "fail") {
        this.failure = v.problem;
        this.stopWhy = "fail";
        return { emit: "", stop: true };
      }
      if (v.kind === "hold") {
        if (!tail && !offer) return { emit: "", stop: false };
        this.stop(tail ? "tail" : "offer", text.length);
        return { emit: "", stop: true };
      }
      this.judged = true;
    }
    const ends = sentenceEnds(text, { final: false });
    // Until something is sent, each sentence is judged as soon as it ends: a sample that goes wrong in its first
    // sentence is abandoned there and the next one starts at once, instead of after the whole reply was generated.
    // A streamed reply is not held for its first sentence: the first word reaching the game fast is the point of
    // streaming, so a streamed sample is judged only on what can be told from its opening (earlyVerdict above) and
    // on what it wrote while that opening was held.
    // Within a sentence, its complete words are checked for the phrases that give a reply away ("according to the
    // provided", "Idris Vane is"), so a one-sentence sample that goes wrong stops there too.
    if (this.o.judgeOpening && this.sent === 0) {
      const upto = ends.at(-1) ?? 0;
      const wordsDone = text.slice(0, Math.max(upto, text.search(/\s\S*$/)));
      const problem =
        (upto > this.judgedTo ? earlyProblem(text.slice(0, upto), this.o.context) : null) ??
        (wordsDone.length > upto && wordsDone.length > this.wordsJudged ? earlyProblem(wordsDone, this.o.context, true) : null);
      if (problem) {
        this.failure = problem;
        this.stopWhy = "fail";
        return { emit: "", stop: true };
      }
      this.judgedTo = Math.max(this.judgedTo, upto);
      this.wordsJudged = Math.max(this.wordsJudged, wordsDone.length);
    }
    const max = this.o.context.maxSentences;
    // A turn that carries a secret sends only whole sentences, each checked first: one that tells it ends the reply
    // before it (or, with nothing sent yet, the attempt: the guard samples again without the secret).
    const secrets = this.o.context.secrets;
    if (secrets.length) {
      const told = this.toldAt(text, ends);
      if (told !== null) {
        if (told === 0 && this.sent === 0 && this.o.judgeOpening) {
          this.failure = { kind: "secretLeak", detail: leakOf(text.slice(0, ends[this.checked] ?? text.length), secrets) ?? "" };
          this.stopWhy = "fail";
          return { emit: "", stop: true };
        }
        if (told > 0 || this.sent > 0) {
          this.stop("secret", told);
          return { emit: this.release(text, this.cutAt!), stop: true };
        }
      }
    }
    const loop = loopCut(text, ends);
    const estTokens = Math.max(this.pieces, Math.ceil(text.length / 4));
    if (this.nearFrom === null && this.o.maxTokens - estTokens <= NEAR_CAP_TOKENS) this.nearFrom = ends.length;
    if (loop !== null) this.stop("loop", loop);
    else if (ends.length >= max) this.stop("sentences", ends[max - 1]);
    else if (this.nearFrom !== null && ends.length > this.nearFrom) this.stop("cap", ends.at(-1)!);
    // The rest of the sample is the tail the model wrote into its words: nothing after this point is said.
    if (tail && this.cutAt === null) this.stop("tail", text.length);
    // What follows is an assistant's offer of help: the reply is what stood before it.
    if (offer && this.cutAt === null) this.stop("offer", text.length);
    let limit = this.cutAt ?? text.length;
    // Near the cap, or while the sentence being written may be an earlier one again or an offer of help, hold back
    // after the last end.
    if (this.cutAt === null && (this.nearFrom !== null || secrets.length > 0 || mayRepeat(text, ends) || (!!this.o.cutOffers && mayOffer(text, ends))))
      limit = ends.at(-1) ?? 0;
    return { emit: this.release(text, limit), stop: this.stopWhy !== null };
  }

  /**
   * The attempt is over: `text` is the backend's cleaned reply (the stream's text, cleaned of markers). Returns the
   * final reply (cut as decided, or at its last sentence end when the cap cut it) and what of it is still unsent.
   */
  finish(text: string, finishReason: FinishReason): { text: string; emit: string } {
    if (this.stopWhy === "fail") return { text: "", emit: "" };
    const words = this.spoken(text, true);
    let out = words.text;
    if (words.tail && this.stopWhy === null) this.stopWhy = "tail";
    if (words.offer && this.stopWhy === null) this.stopWhy = "offer";
    if (!this.judged && this.o.judgeOpening) {
      const v = earlyVerdict(out, this.o.context, this.openings, true);
      if (v.kind === "fail") {
        this.failure = v.problem;
        this.stopWhy = "fail";
        return { text: "", emit: "" };
      }
      this.judged = true;
    }
    if (this.cutAt !== null) out = out.slice(0, Math.max(this.cutAt, this.sent)).trimEnd();
    else {
      if (this.o.context.secrets.length) {
        const told = this.toldAt(out, sentenceEnds(out));
        if (told !== null && told >= this.sent) {
          if (told === 0 && this.o.judgeOpening) {
            this.failure = { kind: "secretLeak", detail: leakOf(out, this.o.context.secrets) ?? "" };
            this.stopWhy = "fail";
            return { text: "", emit: "" };
          }
          if (told > 0) {
            out = out.slice(0, told).trimEnd();
            this.stopWhy = "secret";
          }
        }
      }
      const loop = loopCut(out, sentenceEnds(out));
      if (loop !== null && loop >= this.sent) {
        out = out.slice(0, loop).trimEnd();
        this.stopWhy = "loop";
      }
      out = capSentences(out, this.o.context.maxSentences);
      if (finishReason === "length") {
        const cut = cutAtLastSentence(out);
        out = cut.length >= this.sent ? cut : out.slice(0, this.sent);
      }
    }
    const emit = this.o.streaming && out.length > this.sent ? out.slice(this.sent) : "";
    if (this.o.streaming) this.sent = Math.max(this.sent, out.length);
    return { text: out, emit };
  }

  /** Where the first sentence not yet checked that tells a secret starts, or null (confirmed sentences and, once done, the rest). */
  private toldAt(text: string, ends: number[]): number | null {
    const bounds = [0, ...ends];
    for (let i = this.checked; i < ends.length; i++) {
      this.checked = i + 1;
      if (leakOf(text.slice(bounds[i], ends[i]), this.o.context.secrets) !== null) return bounds[i];
    }
    return null;
  }

  private stop(why: StopWhy, at: number): void {
    this.stopWhy = why;
    this.cutAt = Math.max(at, this.sent);
  }

  private release(text: string, limit: number): string {
    if (!this.o.streaming) return "";
    const end = Math.min(limit, text.trimEnd().length);
    if (end <= this.sent) return "";
    const out = text.slice(this.sent, end);
    this.sent = end;
    return out;
  }

  /**
   * The text the words are: before a tail the model started writing itself, and before what may yet become one
   * while it streams (a finished text ends before it: a lone `{"emo` at the end is the start of a tail, cut off).
   */
  private words(text: string, final: boolean): { text: string; tail: boolean } {
    if (!this.o.tail) return { text, tail: false };
    const { at, holdFrom } = tailSignAt(text, this.o.tail);
    if (at !== null) return { text: text.slice(0, at), tail: true };
    if (holdFrom !== null) return { text: text.slice(0, holdFrom), tail: final };
    return { text, tail: false };
  }

  /**
   * The text the reply says: without its own speaker label, before a tail the model wrote into it, and before an
   * assistant's offer of help that follows what it said ("Hi Rosalind Tey! How can I assist you today?" says "Hi
   * Rosalind Tey!"), when the policy cuts them.
   */
  private spoken(raw: string, final = false): { text: string; tail: boolean; offer: boolean } {
    const { text, tail } = this.words(this.shaped(raw), final);
    if (!this.o.cutOffers) return { text, tail, offer: false };
    const at = offerCut(text, sentenceEnds(text, { final }));
    // Words a client was sent stay said: an offer that starts within them is no longer cut.
    return at === null || at < this.sent ? { text, tail, offer: false } : { text: text.slice(0, at).trimEnd(), tail, offer: true };
  }

  /** A reply that opens with its own speaker label ("Idris Vane: Aye…") says the rest: the label goes. */
  private shaped(text: string): string {
    return text.replace(this.ownLabel, "");
  }
}

function labelVerdict(text: string, labels: string[][]): { kind: "hold" | "pass" } {
  const w = words(text);
  const held = w.length === 0 || labels.some((l) => w.length <= l.length && w.every((x, i) => (i === w.length - 1 ? l[i].startsWith(x) : l[i] === x)));
  return { kind: held && text.length < HOLD_MAX_CHARS ? "hold" : "pass" };
}

function ownLabelPattern(mindName: string): RegExp {
  const names = nameForms(mindName).map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^\\s*\\**\\s*(?:${names.join("|")})\\s*\\**\\s*:\\s*`, "i");
}
