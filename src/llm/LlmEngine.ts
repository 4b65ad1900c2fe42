import { basename } from "node:path";
import { LlamaChat, type ChatWrapper, type Llama, type LlamaContext, type LlamaContextSequence, type LlamaModel } from "node-llama-cpp";
import { cleanReply } from "./cleanReply.ts";
import { DecodeBatcher } from "./DecodeBatcher.ts";
import { probeInternals, type InternalProbe } from "./internals.ts";
import { sharedLlama } from "./llamaRuntime.ts";
import { RequestSignal } from "./RequestSignal.ts";
import { SamplingControls } from "./SamplingControls.ts";
import { emptyTimings } from "./serverTiming.ts";
import { SequencePool, type PoolSlot } from "./SequencePool.ts";
import { PromptTokens } from "./PromptTokens.ts";
import { chatWrapperFor } from "./transcriptChatWrapper.ts";
import { tailSignOf, wordsBeforeTail } from "./tailSign.ts";
import { generateTail } from "./generateTail.ts";
import { SILENT_TOKENS, finishReasonOf, randomSeed, resampleEmptyReply } from "./replyRules.ts";
import { repetitionOptions } from "./repetitionOptions.ts";
import { createContextWithKvType, snapshotStoreFor } from "./kv/kvConfig.ts";
import { TurnGate } from "./kv/TurnGate.ts";
import { WarmStarts, type WarmSlot } from "./kv/WarmStarts.ts";
import type { ChatMessage, GenerateRequest, GenerateResult, GenerateTimings, KvStats, LlmEngineOptions, LlmEngineStats } from "./types.ts";
/** Fewest prompt tokens a KV restore must save (a tiny prompt is cheaper to evaluate). */
const MIN_RESTORE_GAIN = 16;

interface SequenceSlot extends WarmSlot {
  chat: LlamaChat;
}

/**
 * The in-process llama.cpp generation engine: one model, one context with `parallel`
 * sequences, conversations pinned to sequences for KV-cache reuse, concurrent generations
 * batched into shared decode calls, and (with `kvSnapshots`) conversations and minds' prompts
 * kept warm on disk beyond the sequences (kv/WarmStarts.ts).
 */
export class LlmEngine {
  readonly modelPath: string;
  readonly modelName: string;
  /** The model's parameters by its GGUF (the prompt layer reads the smallest chat models' prompts without kept secrets). */
  readonly modelParameters: number;

  private readonly model: LlamaModel;
  private readonly context: LlamaContext;
  private readonly chatWrapper: ChatWrapper;
  private readonly pool: SequencePool<SequenceSlot>;
  private readonly batcher: DecodeBatcher;
  private readonly sampling: SamplingControls;
  private readonly warm: WarmStarts<SequenceSlot> | null;
  private readonly internalsReport: InternalProbe[];
  private readonly prompts: PromptTokens;
  private readonly inFlight = new Set<{ signal: RequestSignal; done: Promise<unknown> }>();
  /** Turns in flight: background warm-ups stand aside for them. */
  private readonly turns = new TurnGate();
  private tokensGenerated = 0;
  private activeSequences = 0;
  private disposed = false;
  private disposing: Promise<void> | null = null;

  private constructor(init: { opts: LlmEngineOptions; llama: Llama; model: LlamaModel; context: LlamaContext; batcher: DecodeBatcher }) {
    const { opts } = init;
    this.modelPath = opts.modelPath;
    this.model = init.model;
    this.context = init.context;
    this.batcher = init.batcher;
    // The file name, as operators pick models by it (`--model`, `model list`); the GGUF's own
    // general.name is often generic or missing.
    this.modelName = basename(opts.modelPath).replace(/\.gguf$/i, "");
    this.modelParameters = this.model.fileInsights.totalParameters;
    // The model's own template (node-llama-cpp maps it to a built-in wrapper or runs its Jinja), or a transcript.
    this.chatWrapper = chatWrapperFor(this.model);
    this.prompts = new PromptTokens(this.model, this.chatWrapper);
    const slots: SequenceSlot[] = [];
    for (let i = 0; i < this.context.totalSequences; i++) {
      const sequence = this.context.getSequence();
      const chat = new LlamaChat({ contextSequence: sequence, chatWrapper: this.chatWrapper, autoDisposeSequence: false });
      slots.push({ sequence, chat, holds: null, saved: null });
    }
    this.pool = new SequencePool(slots);
    this.sampling = new SamplingControls(init.llama, this.model);
    this.internalsReport = probeInternals(this.context, slots[0].sequence, this.sampling.noBias);
    const kv = opts.kvSnapshots;
    const stateApi = this.internalsReport.filter((p) => p.kind === "public").every((p) => p.available);
    this.warm =
      kv && stateApi
        ? new WarmStarts(
            snapshotStoreFor(kv, opts.modelPath, this.context, init.llama),
            this.pool,
            { restore: kv.restore ?? "auto", minGainTokens: kv.minGainTokens ?? MIN_RESTORE_GAIN, chunkTokens: kv.warmChunkTokens, writer: { pendingSaves: kv.pendingSaves, beforePack: kv.beforePack } },
            this.turns,
          )
        : null;
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
      const context = await createContextWithKvType(model, opts.kvCacheType, {
        sequences: parallel,
        contextSize,
        threads: { ideal: threads, min: threads },
        batching: batcher.batchingOptions,
        flashAttention: opts.flashAttention,
        failedCreationRemedy: false,
      });
      batcher.attach(context);
      return new LlmEngine({ opts, llama, model, context, batcher });
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
    return this.prompts.count(text);
  }

  /**
   * An upper bound of countChatTokens that costs almost nothing on a
   * returning conversation: the (cached) token counts of each message's text
   * plus a generous allowance for the template's markup per message. Enough
   * for credit reservations; the exact count comes back with the result.
   */
  estimateChatTokens(messages: ChatMessage[]): number {
    return this.prompts.estimate(messages);
  }

  /** Tokens of the whole prompt as the chat template renders it (with the opening of `speaker`'s reply, if any). */
  countChatTokens(messages: ChatMessage[], speaker?: string): number {
    return this.prompts.chatCount(messages, speaker);
  }

  /** Which conversation each sequence's KV cache holds (diagnostics and tests). */
  cachedConversations(): (string | null)[] {
    return this.pool.keys();
  }

  /** Which node-llama-cpp internals (and public state API) this engine found at load (/readyz). */
  internals(): InternalProbe[] {
    return this.internalsReport.map((p) => ({ ...p }));
  }

  stats(): LlmEngineStats {
    const kv = this.kvStats();
    return {
      decodeCalls: this.batcher.decodeCalls,
      tokensGenerated: this.tokensGenerated,
      activeSequences: this.activeSequences,
      queueDepth: this.pool.queueDepth,
      sequences: this.pool.size,
      // A new conversation now starts from its mind's prefix snapshot instead of a copy of a live sequence.
      prefixCopies: kv?.prefixRestores ?? 0,
      prefixTokensCopied: kv?.prefixRestoredTokens ?? 0,
      ...(kv ? { kv } : {}),
    };
  }

  /** KV snapshot counters and the store's size; null when snapshots are off. */
  kvStats(): KvStats | null {
    if (!this.warm) return null;
    const store = this.warm.storeStats();
    return { ...this.warm.counters, store: { fingerprint: this.warm.fingerprint, ...store } };
  }

  /**
   * Evaluates a mind's static prompt (its system message) in the background on an idle sequence and
   * saves it, so a new player's first turn with this mind starts from it. No turn waits for it (WarmStarts).
   * `speaker`: the mind's name, as its turns name it (a model without a chat template lays the prompt out for it).
   */
  warmMind(systemPrompt: string, speaker?: string): void {
    const prefix = this.warm ? this.prompts.prefix([{ role: "system", content: systemPrompt }], speaker) : null;
    if (prefix) this.warm!.warmPrefix(prefix.key, prefix.tokens);
  }

  /** Resolves once background KV work (saves, mind prefixes) is done. */
  kvIdle(): Promise<void> {
    return this.warm?.idle() ?? Promise.resolve();
  }

  /** Drops every conversation whose key matches from the sequences and the snapshot store (erasure). */
  forgetConversations(match: (conversationKey: string) => boolean): number {
    if (this.warm) return this.warm.forget(match);
    for (const slot of this.pool.slotsView()) {
      if (slot.key === null || slot.busy || !match(slot.key)) continue;
      this.pool.disown(slot);
      void slot.value.sequence.clearHistory().catch(() => {});
    }
    return 0;
  }

  async generate(req: GenerateRequest): Promise<GenerateResult> {
    if (this.disposed || this.disposing) throw new Error("LlmEngine is disposed");
    const signal = new RequestSignal(req.signal, req.timeoutMs);
    this.turns.enter(); // from the call on, before it asks for a sequence: a warm-up looking now already stands aside
    const entry = { signal, done: this.run(req, signal) };
    this.inFlight.add(entry);
    try {
      return await entry.done;
    } finally {
      signal.dispose();
      this.inFlight.delete(entry);
      this.turns.leave();
    }
  }

  /**
   * Aborts in-flight and waiting generations (they return finishReason "abort"), saves every
   * conversation's KV state not yet on disk, then frees everything.
   */
  dispose(): Promise<void> {
    this.disposing ??= (async () => {
      for (const { signal } of this.inFlight) signal.abort("abort");
      await Promise.allSettled([...this.inFlight].map((e) => e.done));
      await this.warm?.close().catch(() => {});
      this.disposed = true;
      await this.context.dispose();
      await this.model.dispose();
      // the runtime is the process's, shared with any other engine (llamaRuntime.ts)
    })();
    return this.disposing;
  }

  private async run(req: GenerateRequest, run: RequestSignal): Promise<GenerateResult> {
    const startedAt = performance.now();
    const { history, tokens: prompt } = this.prompts.turn(req.messages, req.speaker);
    const promptTokens = prompt.length;
    const prefix = this.warm ? this.prompts.prefix(req.messages, req.speaker) : null;
    const grammar = req.jsonSchema ? await this.sampling.grammarFor(req.jsonSchema) : undefined;
    // Made while the words are sampled (cached per schema): the first word never waits for the tail's grammar.
    const tailGrammar = req.tail ? this.sampling.grammarFor(req.tail.jsonSchema, { compact: !req.tail.spacedJson }) : null;
    const gateGrammars = req.tail?.gate ? this.sampling.gateGrammarsFor(req.tail.gate) : undefined;
    const timings: GenerateTimings = Object.assign(req.timings ?? emptyTimings(), emptyTimings(), { tokenizeMs: performance.now() - startedAt });
    const stopped = (): GenerateResult => ({
      text: "",
      promptTokens,
      evaluatedPromptTokens: 0,
      completionTokens: 0,
      finishReason: run.reason ?? "abort",
      timeToFirstTokenMs: performance.now() - startedAt,
      timings,
    });

    let slot: PoolSlot<SequenceSlot>;
    const queuedAt = performance.now();
    try {
      slot = await this.pool.acquire(req.conversationKey, run.signal);
    } catch (err) {
      if (run.reason) return stopped();
      throw err;
    }
    timings.queueMs = performance.now() - queuedAt;

    const { sequence, chat } = slot.value;
    // Token accounting from what llama.cpp did, not from the text LlamaChat chose to show (it holds
    // back partial characters and partial stop triggers): every decode on this sequence is either
    // an uncached prompt token or a sampled token fed back, and every sampled token consults the
    // token bias exactly once. Restored KV state is never metered.
    const meter = sequence.tokenMeter;
    const metered = () => meter.usedInputTokens + meter.usedOutputTokens;
    let meteredBefore = metered();
    let sampled = 0;
    let evalStartedAt = performance.now();
    let firstTokenAt: number | null = null;
    let firstTextAt: number | null = null;
    let streamedText = false;
    const minTokens = grammar ? 0 : Math.max(0, req.minTokens ?? 0);
    const { open: freeBias, holdEnd: eogBias } = this.sampling.biasesFor(grammar ? undefined : req.avoid, minTokens > 0);
    // A reply must say something: the end of the turn stays banned for the first minTokens tokens and then
    // until the first visible character (at most SILENT_TOKENS more). Small real models otherwise end their
    // turn after a lone newline, and the trimmed reply is empty (BENCHMARKS "Quality on real models").
    let visible = false;
    let attempts = 1;
    let sampledThisAttempt = 0;
    const tokenBias = () => {
      if (sampled++ === 0) firstTokenAt = performance.now();
      const n = ++sampledThisAttempt;
      const holdEnd = eogBias !== null && (n <= minTokens || (!visible && n <= minTokens + SILENT_TOKENS));
      return holdEnd ? eogBias : freeBias;
    };
    const counts = (stopReason?: string) => {
      // The last sampled token of each attempt is never fed back: it ended that generation.
      const evaluatedPromptTokens = Math.max(0, metered() - meteredBefore - Math.max(0, sampled - attempts));
      const completionTokens = Math.max(0, sampled - (stopReason === "eogToken" ? 1 : 0));
      this.tokensGenerated += completionTokens;
      const end = performance.now();
      timings.evalMs = (firstTokenAt ?? end) - evalStartedAt;
      timings.firstSampleMs = firstTokenAt === null ? 0 : (firstTextAt ?? end) - firstTokenAt;
      return { evaluatedPromptTokens, completionTokens, timeToFirstTokenMs: (firstTokenAt ?? end) - startedAt, timings };
    };

    this.activeSequences++;
    let evaluated = 0;
    try {
      if (this.warm) {
        const w = await this.warm.prepare(slot, req.conversationKey, prompt, prefix);
        timings.kvSaveMs = w.saveMs;
        timings.kvRestoreMs = w.restoreMs;
        timings.warmSource = w.source;
        meteredBefore = metered();
      }
      evalStartedAt = performance.now();
      this.batcher.begin(sequence);
      const temperature = req.temperature ?? 0.7;
      const seed = req.seed ?? randomSeed();
      const generate = (attemptSeed: number) => chat.generateResponse(history, {
        signal: req.stopSignal ? AbortSignal.any([run.signal, req.stopSignal]) : run.signal,
        stopOnAbortSignal: true,
        maxTokens: Math.max(1, Math.floor(req.maxTokens)),
        temperature,
        seed: attemptSeed,
        grammar,
        customStopTriggers: grammar ? undefined : this.sampling.stopTriggersWith(req.tail?.delimiter),
        tokenBias,
        ...repetitionOptions(req.repetition),
        onTextChunk: (chunk) => {
          if (!visible && chunk.trim() !== "") visible = true;
          if (firstTextAt === null) {
            firstTextAt = performance.now();
            timings.evalMs = (firstTokenAt ?? firstTextAt) - evalStartedAt;
            timings.firstSampleMs = firstTextAt - (firstTokenAt ?? firstTextAt);
          }
          if (!req.onToken) return;
          // Match the trimmed final text: no leading whitespace on the stream either.
          const text = streamedText ? chunk : chunk.trimStart();
          if (text === "") return;
          streamedText = true;
          req.onToken(text);
        },
      });
      let response = await generate(seed);
      const again = { streamed: streamedText, grammar: !!grammar, temperature, aborted: !!run.reason };
      if (resampleEmptyReply({ ...again, text: cleanReply(response.response), stopReason: response.metadata.stopReason })) {
        attempts++;
        sampledThisAttempt = 0;
        visible = false;
        response = await generate(seed + 1);
      }
      const stopReason = response.metadata.stopReason;
      const c = counts(stopReason);
      evaluated = c.evaluatedPromptTokens;
      // A typed turn's words end where the model began writing the tail itself; the tail continues from there.
      const text = req.tail ? wordsBeforeTail(cleanReply(response.response), tailSignOf(req.tail)) : cleanReply(response.response);
      const finishReason = finishReasonOf(stopReason, run.reason, req.stopSignal);
      const tail = tailGrammar && finishReason !== "abort" && finishReason !== "timeout"
        ? await generateTail(chat, { history, words: text, tail: req.tail!, grammar: tailGrammar, gateGrammars, model: this.model, forced: this.sampling.forced, tokenize: (t) => this.model.tokenize(t), signal: run.signal, runReason: () => run.reason, temperature, seed: seed + 1, noBias: this.sampling.noBias, countTokens: (t) => this.countTokens(t), metered, decodeCalls: () => this.batcher.decodeCalls })
        : undefined;
      this.tokensGenerated += tail?.tokens ?? 0;
      return { text, promptTokens, ...c, finishReason, ...(tail ? { tail } : {}) };
    } catch (err) {
      // Aborted (or stopped) before the first token (LlamaChat throws then): a result, not an error.
      if (!run.reason && !req.stopSignal?.aborted) throw err;
      return { ...stopped(), ...counts(), finishReason: finishReasonOf("abort", run.reason, req.stopSignal) };
    } finally {
      this.batcher.end(sequence);
      this.activeSequences--;
      this.pool.release(slot);
      this.warm?.afterTurn(slot, evaluated, (firstTokenAt ?? performance.now()) - evalStartedAt);
    }
  }
}
