import { LlamaText, SpecialTokensText, TokenBias, type Llama, type LlamaGrammar, type LlamaModel, type Token } from "node-llama-cpp";
import { PROMPT_SECTION_MARKERS, ROLE_LABEL_STOPS, ROLE_MARKERS } from "./cleanReply.ts";
import { ForcedText } from "./forcedText.ts";
import { biasMapOf, grammarStepsOf } from "./internals.ts";
import { jsonSchemaGrammar } from "./jsonSchemaGrammar.ts";
import type { AvoidText, TailGate } from "./types.ts";

const MAX_GRAMMARS = 256;

/** What steers sampling: stop triggers, token biases, JSON grammars (one set per model). */
export class SamplingControls {
  /** Turn markers this model knows as special tokens, as the token and as plain text. */
  readonly stopTriggers: LlamaText[];
  readonly noBias: TokenBias;
  /** what a tail's grammar forces, appended in batches (null: the grammar internals are gone) */
  readonly forced: ForcedText | null;
  private eogBias: TokenBias | null = null;
  private readonly grammars = new Map<string, Promise<LlamaGrammar>>();

  constructor(
    private readonly llama: Llama,
    private readonly model: LlamaModel,
  ) {
    // The template's own end of turn is already a stop trigger. Markers of other templates are only
    // cleaned from the final text: every extra trigger costs a little on each token.
    this.stopTriggers = this.specialMarkers().flatMap((m) => [LlamaText(new SpecialTokensText(m)), LlamaText(m)]);
    // Prompt imitation (see cleanReply): stopping there keeps the streamed text equal to the final reply.
    for (const m of [...PROMPT_SECTION_MARKERS, ...ROLE_LABEL_STOPS]) this.stopTriggers.push(LlamaText(m));
    this.noBias = new TokenBias(model.tokenizer);
    const steps = grammarStepsOf(llama);
    this.forced = steps ? new ForcedText(model, steps) : null;
  }

  /** The stop triggers, and a typed turn's delimiter (a model that writes it itself ends its words there). */
  stopTriggersWith(delimiter: string | undefined): LlamaText[] {
    const marker = delimiter?.trim();
    return marker ? [...this.stopTriggers, LlamaText(marker)] : this.stopTriggers;
  }

  /** One grammar per schema, the most recently used kept (behaviour tails vary with each turn's offered actions). */
  grammarFor(schema: object, o: { compact?: boolean } = {}): Promise<LlamaGrammar> {
    const key = `${o.compact ? "compact:" : ""}${JSON.stringify(schema)}`;
    let grammar = this.grammars.get(key);
    if (grammar) this.grammars.delete(key);
    else {
      grammar = jsonSchemaGrammar(this.llama, schema, o);
      grammar.catch(() => this.grammars.delete(key));
      if (this.grammars.size >= MAX_GRAMMARS) this.grammars.delete(this.grammars.keys().next().value!);
    }
    this.grammars.set(key, grammar);
    return grammar;
  }

  /** The grammars of a gated tail's two ways on (compact, like every tail's). */
  gateGrammarsFor(gate: TailGate): Promise<{ stay: LlamaGrammar; act: LlamaGrammar }> {
    const both = Promise.all([this.grammarFor(gate.stay.jsonSchema, { compact: true }), this.grammarFor(gate.act.jsonSchema, { compact: true })]).then(([stay, act]) => ({ stay, act }));
    // Made while the words stream and awaited only after them: a failure is handled there (generateTail), not unhandled now.
    both.catch(() => {});
    return both;
  }

  /**
   * Every end-of-generation token (EOS, EOT, template end markers) set to "never".
   * `TokenBias.set` deliberately skips EOG tokens in node-llama-cpp 3.22.1, so they go straight
   * into its bias map (internals.ts; the native sampler applies whatever the map holds).
   */
  endOfGenerationBias(): TokenBias {
    if (!this.eogBias) {
      const bias = new TokenBias(this.model.tokenizer);
      const map = biasMapOf(bias);
      const never = (token: Token) => (map ? map.set(token, -Infinity) : bias.set(token, "never"));
      for (const token of this.model.iterateAllTokens()) if (this.model.isEogToken(token)) never(token);
      for (const marker of this.specialMarkers()) never(this.model.tokenize(marker, true)[0]);
      this.eogBias = bias;
    }
    return this.eogBias;
  }

  /**
   * The token biases of one generation: `open` while the reply may end, `holdEnd` while its end is held back (every
   * end-of-generation token never, as endOfGenerationBias). Without texts to avoid they are the shared ones.
   */
  biasesFor(avoid: AvoidText[] | undefined, holdsEnd: boolean): { open: TokenBias; holdEnd: TokenBias | null } {
    const eog = holdsEnd ? this.endOfGenerationBias() : null;
    if (!avoid?.length) return { open: this.noBias, holdEnd: eog };
    // Each token of each text as the model tokenizes it (llama-server's logit_bias tokenizes a string the same way);
    // a token two texts share keeps the stronger bias.
    const logits = new Map<Token, number>();
    for (const a of avoid)
      for (const token of this.model.tokenize(a.text))
        if (!this.model.isEogToken(token)) logits.set(token, Math.min(logits.get(token) ?? 0, a.logit));
    const make = (extra: TokenBias | null) => {
      const bias = new TokenBias(this.model.tokenizer);
      for (const [token, logit] of logits) bias.set(token, { logit });
      const map = biasMapOf(bias);
      const from = extra ? biasMapOf(extra) : null;
      if (map && from) for (const [token, v] of from) map.set(token, v);
      return bias;
    };
    return { open: make(null), holdEnd: eog ? make(eog) : null };
  }

  /** Role markers that are single special tokens in this model's vocab. */
  private specialMarkers(): string[] {
    return ROLE_MARKERS.filter((marker) => {
      const tokens = this.model.tokenize(marker, true);
      return tokens.length === 1 && this.model.isSpecialToken(tokens[0]);
    });
  }
}
