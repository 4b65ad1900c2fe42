import { basename } from "node:path";
import {
  LlamaChat,
  LlamaText,
  resolveChatWrapper,
  SpecialTokensText,
  TokenBias,
  type ChatHistoryItem,
  type ChatWrapper,
  type Llama,
  type LlamaContext,
  type LlamaContextSequence,
  type LlamaGrammar,
  type LlamaModel,
  type Token,
} from "node-llama-cpp";
import { cleanReply, PROMPT_SECTION_MARKERS, ROLE_MARKERS, ROLE_LABEL_STOPS } from "./cleanReply.ts";
import { commonPrefixLength } from "./commonPrefix.ts";
import { DecodeBatcher } from "./DecodeBatcher.ts";
import { sharedLlama } from "./llamaRuntime.ts";
import { RequestSignal } from "./RequestSignal.ts";
import { SequencePool, type PoolSlot } from "./SequencePool.ts";
import { TokenCountCache } from "./TokenCountCache.ts";
import { toChatHistory } from "./toChatHistory.ts";
import type {
  ChatMessage,
  FinishReason,
  GenerateRequest,
  GenerateResult,
  LlmEngineOptions,
  LlmEngineStats,
} from "./types.ts";

/** Markup a chat template adds around one message (ChatML: `<|im_start|>role\n…<|im_end|>\n` ≈ 5 tokens), rounded up. */
const TEMPLATE_TOKENS_PER_MESSAGE = 16;
/**
 * Prompt tokens another sequence must share beyond the sequence's own cache before its KV state
 * is copied: the copy moves the whole per-sequence KV buffer (a few ms), about what evaluating
 * a few dozen prompt tokens costs on a CPU.
 */
const MIN_SHARED_PREFIX_GAIN = 48;

interface SequenceSlot {
  sequence: LlamaContextSequence;
  chat: LlamaChat;
}

/**
 * node-llama-cpp 3.22.1's own KV copy between sequences (its LlamaDecisionContext uses it): copies
 * the other sequence's whole state, keeps the first `upToTokenIndex` tokens, and resolves true
 * when the sequence then holds exactly those. package.json pins the version; without it a
 * newcomer simply evaluates its whole prompt.
 */
interface SequenceCopy {
  _copyStateFromOtherSequence?: (other: LlamaContextSequence, upToTokenIndex: number) => Promise<boolean>;
}

/**
 * The in-process llama.cpp generation engine: one model, one context with `parallel`
 * sequences, conversations pinned to sequences for KV-cache reuse, concurrent generations
 * batched into shared decode calls.
 */
export class LlmEngine {
  readonly modelPath: string;
  readonly modelName: string;

  private readonly llama: Llama;
  private readonly model: LlamaModel;
  private readonly context: LlamaContext;
  private readonly chatWrapper: ChatWrapper;
  private readonly pool: SequencePool<SequenceSlot>;
  private readonly batcher: DecodeBatcher;
  private readonly stopTriggers: LlamaText[];
  private readonly grammars = new Map<string, Promise<LlamaGrammar>>();
  private readonly tokenCounts = new TokenCountCache();
  private readonly inFlight = new Set<{ signal: RequestSignal; done: Promise<unknown> }>();
  private eogBias: TokenBias | null = null;
  private readonly noBias: TokenBias;
  private tokensGenerated = 0;
  private prefixCopies = 0;
  private prefixTokensCopied = 0;
  private activeSequences = 0;
  private disposed = false;
  private disposing: Promise<void> | null = null;

  private constructor(init: {
    modelPath: string;
    llama: Llama;
    model: LlamaModel;
    context: LlamaContext;
    batcher: DecodeBatcher;
  }) {
    this.modelPath = init.modelPath;
    this.llama = init.llama;
    this.model = init.model;
    this.context = init.context;
    this.batcher = init.batcher;
    // The file name, as operators pick models by it (`--model`, `model list`); the GGUF's own
    // general.name is often generic or missing.
    this.modelName = basename(init.modelPath).replace(/\.gguf$/i, "");
    // The model's own template: node-llama-cpp maps it to a built-in wrapper or runs the Jinja template.
    this.chatWrapper = resolveChatWrapper(this.model);
    const slots: SequenceSlot[] = [];
    for (let i = 0; i < this.context.totalSequences; i++) {
      const sequence = this.context.getSequence();
      slots.push({ sequence, chat: new LlamaChat({ contextSequence: sequence, chatWrapper: this.chatWrapper, autoDisposeSequence: false }) });
    }
    this.pool = new SequencePool(slots);
    // The turn markers this model knows as special tokens stop a reply (as the token and as plain
    // text); the template's own end of turn is already a stop trigger. Markers of other templates
    // are only cleaned from the final text: every extra trigger costs a little on each token.
    this.stopTriggers = this.specialMarkers().flatMap((m) => [LlamaText(new SpecialTokensText(m)), LlamaText(m)]);
    // Prompt imitation (see cleanReply): stopping there keeps the streamed text equal to the final reply.
    for (const m of [...PROMPT_SECTION_MARKERS, ...ROLE_LABEL_STOPS]) this.stopTriggers.push(LlamaText(m));
    this.noBias = new TokenBias(this.model.tokenizer);
  }

  static async load(opts: LlmEngineOptions): Promise<LlmEngine> {
    const threads = Math.max(1, Math.floor(opts.threads));
    const parallel = Math.max(1, Math.floor(opts.parallel));
    // The thread count is explicit because the CPU default (at least 4) makes a 2-core machine ~60× slower.
    const llama = await sharedLlama(threads, opts.logLevel);
    let model: LlamaModel | null = null;
    try {
      model = await llama.loadModel({ modelPath: opts.modelPath });
      const contextSize = opts.contextSize ?? Math.min(model.trainContextSize, 4096);
      const batcher = new DecodeBatcher({
        promptChunkTokens: opts.promptChunkTokens ?? 128,
        maxWaitMs: opts.batchWaitMs ?? 25,
      });
      const context = await model.createContext({
        sequences: parallel,
        contextSize,
        threads: { ideal: threads, min: threads },
        batching: batcher.batchingOptions,
        flashAttention: opts.flashAttention,
        failedCreationRemedy: false,
      });
      batcher.attach(context);
      return new LlmEngine({ modelPath: opts.modelPath, llama, model, context, batcher });
    } catch (err) {
      await model?.dispose().catch(() => {});
      throw err;
    }
  }

  /** Context size of each sequence, in tokens. */
  get contextSize(): number {
    return this.context.contextSize;
  }

  /** Tokens of plain text (for credit reservations). */
  countTokens(text: string): number {
    return this.tokenCounts.get(text, (t) => this.model.tokenize(t).length);
  }

  /**
   * An upper bound of countChatTokens that costs almost nothing on a
   * returning conversation: the (cached) token counts of each message's text
   * plus a generous allowance for the template's markup per message. Enough
   * for credit reservations; the exact count comes back with the result.
   */
  estimateChatTokens(messages: ChatMessage[]): number {
    return messages.reduce((n, m) => n + this.countTokens(m.content) + TEMPLATE_TOKENS_PER_MESSAGE, TEMPLATE_TOKENS_PER_MESSAGE);
  }

  /** Tokens of the whole prompt as the chat template renders it (with the opening of the reply). */
  countChatTokens(messages: ChatMessage[]): number {
    return this.countHistoryTokens(toChatHistory(messages));
  }

  /** Which conversation each sequence's KV cache holds (diagnostics and tests). */
  cachedConversations(): (string | null)[] {
    return this.pool.keys();
  }

  stats(): LlmEngineStats {
    return {
      decodeCalls: this.batcher.decodeCalls,
      tokensGenerated: this.tokensGenerated,
      activeSequences: this.activeSequences,
      queueDepth: this.pool.queueDepth,
      sequences: this.pool.size,
      prefixCopies: this.prefixCopies,
      prefixTokensCopied: this.prefixTokensCopied,
    };
  }

  async generate(req: GenerateRequest): Promise<GenerateResult> {
    if (this.disposed || this.disposing) throw new Error("LlmEngine is disposed");
    const signal = new RequestSignal(req.signal, req.timeoutMs);
    const entry = { signal, done: this.run(req, signal) };
    this.inFlight.add(entry);
    try {
      return await entry.done;
    } finally {
      signal.dispose();
      this.inFlight.delete(entry);
    }
  }

  /** Aborts in-flight and waiting generations (they return finishReason "abort"), then frees everything. */
  dispose(): Promise<void> {
    this.disposing ??= (async () => {
      for (const { signal } of this.inFlight) signal.abort("abort");
      await Promise.allSettled([...this.inFlight].map((e) => e.done));
      this.disposed = true;
      await this.context.dispose();
      await this.model.dispose();
      // the runtime is the process's, shared with any other engine (llamaRuntime.ts)
    })();
    return this.disposing;
  }

  private async run(req: GenerateRequest, run: RequestSignal): Promise<GenerateResult> {
    const startedAt = performance.now();
    const history = toChatHistory(req.messages);
    const prompt = this.historyTokens(history);
    const promptTokens = prompt.length;
    const grammar = req.jsonSchema ? await this.grammarFor(req.jsonSchema) : undefined;
    const stopped = (): GenerateResult => ({
      text: "",
      promptTokens,
      evaluatedPromptTokens: 0,
      completionTokens: 0,
      finishReason: run.reason ?? "abort",
      timeToFirstTokenMs: performance.now() - startedAt,
    });

    let slot: PoolSlot<SequenceSlot>;
    try {
      slot = await this.pool.acquire(req.conversationKey, run.signal);
    } catch (err) {
      if (run.reason) return stopped();
      throw err;
    }

    const { sequence, chat } = slot.value;
    // Token accounting from what llama.cpp did, not from the text LlamaChat chose to show (it holds
    // back partial characters and partial stop triggers): every decode on this sequence is either
    // an uncached prompt token or a sampled token fed back, and every sampled token consults the
    // token bias exactly once.
    const meter = sequence.tokenMeter;
    const metered = () => meter.usedInputTokens + meter.usedOutputTokens;
    const meteredBefore = metered();
    let sampled = 0;
    let firstTokenAt: number | null = null;
    let streamedText = false;
    const minTokens = grammar ? 0 : Math.max(0, req.minTokens ?? 0);
    const eogBias = minTokens > 0 ? this.endOfGenerationBias() : null;
    let donor: PoolSlot<SequenceSlot> | null = null;
    const returnDonor = () => {
      if (donor) this.pool.release(donor);
      donor = null;
    };
    const tokenBias = () => {
      if (sampled++ === 0) {
        firstTokenAt = performance.now();
        // The prompt has been decoded, so the KV copy from the donor (done by llama.cpp at the next
        // decode) is complete: the donor can take part in other conversations again.
        returnDonor();
      }
      return eogBias && sampled <= minTokens ? eogBias : this.noBias;
    };
    const counts = (stopReason?: string) => {
      // The last sampled token is never fed back: it ended the generation.
      const evaluatedPromptTokens = Math.max(0, metered() - meteredBefore - Math.max(0, sampled - 1));
      const completionTokens = Math.max(0, sampled - (stopReason === "eogToken" ? 1 : 0));
      this.tokensGenerated += completionTokens;
      return {
        evaluatedPromptTokens,
        completionTokens,
        timeToFirstTokenMs: (firstTokenAt ?? performance.now()) - startedAt,
      };
    };

    this.activeSequences++;
    this.batcher.begin(sequence);
    try {
      donor = await this.adoptSharedPrefix(slot, prompt);
      const response = await chat.generateResponse(history, {
        signal: run.signal,
        stopOnAbortSignal: true,
        maxTokens: Math.max(1, Math.floor(req.maxTokens)),
        temperature: req.temperature ?? 0.7,
        seed: req.seed ?? randomSeed(),
        grammar,
        customStopTriggers: grammar ? undefined : this.stopTriggers,
        tokenBias,
        onTextChunk: req.onToken
          ? (chunk) => {
              // Match the trimmed final text: no leading whitespace on the stream either.
              const text = streamedText ? chunk : chunk.trimStart();
              if (text === "") return;
              streamedText = true;
              req.onToken!(text);
            }
          : undefined,
      });
      const stopReason = response.metadata.stopReason;
      return {
        text: cleanReply(response.response),
        promptTokens,
        ...counts(stopReason),
        finishReason: this.finishReason(stopReason, run),
      };
    } catch (err) {
      // Aborted before the first token (LlamaChat throws then): a result, not an error.
      if (!run.reason) throw err;
      return { ...stopped(), ...counts() };
    } finally {
      returnDonor();
      this.batcher.end(sequence);
      this.activeSequences--;
      this.pool.release(slot);
    }
  }

  private finishReason(stopReason: string, run: RequestSignal): FinishReason {
    switch (stopReason) {
      case "maxTokens":
        return "length";
      case "abort":
        return run.reason ?? "abort";
      default:
        return "stop";
    }
  }

  private countHistoryTokens(history: ChatHistoryItem[]): number {
    return this.historyTokens(history).length;
  }

  private historyTokens(history: ChatHistoryItem[]): Token[] {
    const { contextText } = this.chatWrapper.generateContextState({ chatHistory: history });
    return contextText.tokenize(this.model.tokenizer);
  }

  /**
   * Prompt sharing across conversations: when another idle sequence's cache starts with more of
   * this prompt than the sequence's own (a new player talking to a mind someone else talks to:
   * the mind's static prompt comes first), copy that sequence's KV state and keep the shared
   * part, so only the rest is evaluated. Returns the donor, reserved until the prompt is decoded.
   */
  private async adoptSharedPrefix(slot: PoolSlot<SequenceSlot>, prompt: readonly Token[]): Promise<PoolSlot<SequenceSlot> | null> {
    const { sequence } = slot.value;
    const copy = (sequence as unknown as SequenceCopy)._copyStateFromOtherSequence;
    if (typeof copy !== "function") return null;
    // The last prompt token is always evaluated again (its logits start the reply).
    const usable = (tokens: readonly Token[]) => Math.min(commonPrefixLength(tokens, prompt), prompt.length - 1);
    const own = usable(sequence.contextTokens);
    const best = this.pool.pinBest((s) => usable(s.value.sequence.contextTokens), own + MIN_SHARED_PREFIX_GAIN, slot);
    if (!best) return null;
    let copied = false;
    try {
      copied = await copy.call(sequence, best.slot.value.sequence, best.score);
    } catch {
      copied = false;
    }
    if (copied) {
      this.prefixCopies++;
      this.prefixTokensCopied += best.score;
    } else {
      // A half-done copy leaves the sequence's token list out of step with its cache: start clean.
      await sequence.clearHistory();
    }
    return best.slot;
  }

  private grammarFor(schema: object): Promise<LlamaGrammar> {
    const key = JSON.stringify(schema);
    let grammar = this.grammars.get(key);
    if (!grammar) {
      grammar = this.llama.createGrammarForJsonSchema(schema as never) as Promise<LlamaGrammar>;
      grammar.catch(() => this.grammars.delete(key));
      this.grammars.set(key, grammar);
    }
    return grammar;
  }

  /** Role markers that are single special tokens in this model's vocab. */
  private specialMarkers(): string[] {
    return ROLE_MARKERS.filter((marker) => {
      const tokens = this.model.tokenize(marker, true);
      return tokens.length === 1 && this.model.isSpecialToken(tokens[0]);
    });
  }

  /**
   * Every end-of-generation token (EOS, EOT, template end markers) set to "never".
   * `TokenBias.set` deliberately skips EOG tokens in node-llama-cpp 3.22.1, so they go straight
   * into its bias map (the native sampler applies whatever the map holds).
   */
  private endOfGenerationBias(): TokenBias {
    if (!this.eogBias) {
      const bias = new TokenBias(this.model.tokenizer);
      const map = (bias as unknown as { _biases?: Map<number, number> })._biases;
      const never = (token: Token) => (map ? map.set(token, -Infinity) : bias.set(token, "never"));
      for (const token of this.model.iterateAllTokens()) if (this.model.isEogToken(token)) never(token);
      for (const marker of this.specialMarkers()) never(this.model.tokenize(marker, true)[0]);
      this.eogBias = bias;
    }
    return this.eogBias;
  }
}

// node-llama-cpp's default seed is the current time, which would give identical replies to identical prompts within a tick.
function randomSeed(): number {
  return Math.floor(Math.random() * 0x7fffffff);
}
