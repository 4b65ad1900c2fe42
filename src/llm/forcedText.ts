import type { LlamaGrammarEvaluationState, LlamaModel, Token } from "node-llama-cpp";
import type { GrammarSteps } from "./internals.ts";

/**
 * What a grammar allows next and nothing else: in a typed turn's tail, the keys, quotes, colons and commas between
 * the values, and the rest of an enum value once its first letters tell it apart. Found by asking the grammar about
 * each printable ASCII character's one-character token: where exactly one may come next (and the grammar may not
 * end there), that character is forced. Text beyond ASCII is never forced, only sampled: a grammar that forces it
 * costs a decode step per token, as before, and nothing else.
 */
export class ForcedText {
  private readonly chars: [string, Token][] = [];
  private readonly eog: Token[];
  /** a token to read others after (see the constructor) */
  private readonly readAfter: Token[];

  constructor(
    private readonly model: LlamaModel,
    private readonly steps: GrammarSteps,
  ) {
    const after = (this.readAfter = model.tokenize("x"));
    for (let code = 32; code < 127; code++) {
      const c = String.fromCharCode(code);
      // A tokenizer that prefixes a space (SentencePiece) is asked without it, and a token is read after another
      // (at a text's start SentencePiece drops the leading space, so `▁a` would read `a`). A character it cannot
      // spell as one token alone is not probed.
      const spells = (x: Token[]) => x.length === 1 && model.detokenize(x, false, after) === c;
      const t = [model.tokenize(c), model.tokenize(c, false, "trimLeadingSpace")].find(spells);
      if (t) this.chars.push([c, t[0]]);
    }
    this.eog = [model.tokens.eos, model.tokens.eot].filter((t): t is Token => t != null);
  }

  /** The text the state forces from here (at most `max` characters); the state itself is not advanced. */
  after(state: LlamaGrammarEvaluationState, max = 512): string {
    const probe = state.clone();
    let out = "";
    while (out.length < max && !this.mayEnd(probe)) {
      const only = this.onlyNext(probe);
      if (!only) break;
      this.steps.accept(probe, only[1]);
      out += only[0];
    }
    return out;
  }

  /** The grammar is complete and allows no character more: the tail has ended without sampling its end. */
  ended(state: LlamaGrammarEvaluationState): boolean {
    return this.mayEnd(state) && !this.chars.some(([, t]) => this.steps.canBeNext(state, t));
  }

  /**
   * The forced text as tokens the grammar takes, each taken on `state` (`spelled`, else the model's own spelling where
   * it spells the text exactly, else a token a character); stops at the first the grammar refuses.
   */
  take(state: LlamaGrammarEvaluationState, text: string, room: number, spelled?: Token[]): Token[] {
    const tokens = spelled ?? this.spell(text);
    const taken: Token[] = [];
    for (const t of tokens.slice(0, Math.max(0, room))) {
      if (!this.steps.canBeNext(state, t)) break;
      this.steps.accept(state, t);
      taken.push(t);
    }
    return taken;
  }

  /**
   * Text as tokens that read back as exactly it after other text: the model's own spelling, without the leading
   * space a SentencePiece tokenizer puts at a text's start, else a token a character (those this class probes).
   */
  spell(text: string): Token[] {
    const m = this.model;
    return (
      [m.tokenize(text), m.tokenize(text, false, "trimLeadingSpace")].find((x) => m.detokenize(x, false, this.readAfter) === text) ??
      [...text].map((c) => this.chars.find(([x]) => x === c)?.[1]).filter((t): t is Token => t !== undefined)
    );
  }

  /** Whether the grammar, from `state`, takes these tokens in turn (the state itself is not advanced). */
  allows(state: LlamaGrammarEvaluationState, tokens: Token[]): boolean {
    const probe = state.clone();
    for (const t of tokens) {
      if (!this.steps.canBeNext(probe, t)) return false;
      this.steps.accept(probe, t);
    }
    return true;
  }

  private mayEnd(state: LlamaGrammarEvaluationState): boolean {
    return this.eog.some((t) => this.steps.canBeNext(state, t));
  }

  private onlyNext(state: LlamaGrammarEvaluationState): [string, Token] | null {
    let only: [string, Token] | null = null;
    for (const ch of this.chars) {
      if (!this.steps.canBeNext(state, ch[1])) continue;
      if (only) return null;
      only = ch;
    }
    return only;
  }
}
