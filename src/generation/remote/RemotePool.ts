import { tailSignOf, wordsBeforeTail } from "../../llm/tailSign.ts";
import { byteBound, chatBound } from "../estimateTokens.ts";
import { generateStructured } from "../structured.ts";
import type { BackendConfig, BackendStatus, ChatMessage, GenerateRequest, GenerateResult, GenerationBackend } from "../types.ts";
import { CountCache } from "./CountCache.ts";
import type { TokenCountStore } from "./tokenCountStore.ts";
import { HashRing } from "./HashRing.ts";
import { AttemptError, ContextOverflowError } from "./attemptErrors.ts";
import { RemoteBackend, type RemoteResult } from "./RemoteBackend.ts";
import { remoteTail } from "./remoteTail.ts";
import { emptyToResample, resampled } from "./emptyReply.ts";

export interface RemotePoolOptions {
  backends: BackendConfig[];
  /** per-request budget when the caller gives none (config generationTimeoutMs) */
  defaultTimeoutMs: number;
  /** context size assumed when no backend reports one (config contextSize) */
  fallbackContextSize: number;
  /** seconds between health probes; 0 = no background probing (tests drive probe() themselves) */
  probeIntervalMs?: number;
  /** "sticky" (consistent hashing, the default) or "round-robin" (the benchmark's baseline) */
  routing?: "sticky" | "round-robin";
  log?: { warn(msg: string, fields?: Record<string, unknown>): void };
  /** where exact counts are kept across restarts (the server's SQLite); without, only in memory */
  countStore?: TokenCountStore;
}

/** /tokenize calls a pool has in flight at once (see tokenizeLimited). */
const TOKENIZE_CONCURRENCY = 4;
/** Texts' bytes one /tokenize call carries at most (a batch holds one of the server's few HTTP threads for ~1 ms). */
const TOKENIZE_BATCH_BYTES = 32_768;
/** Counts kept in memory (the kept store holds the rest). */
const COUNTS_IN_MEMORY = 8_192;
/**
 * What a tokenizer is known by: its ids for this text. Two tokenizers that split it alike count everything alike
 * in practice; the model's name is part of the identity too, so another model never reads these counts.
 */
const FINGERPRINT_TEXT = "Thé quick brown fox, 1,234.5 km — naïve Ünicode 東京 🙂 <|im_end|></s>\n\tdone.";

export interface PrepareOptions {
  /** background work (a choice made ahead): one call at a time, after every waiting request's */
  background?: boolean;
}

/** No backend could take the request (all down, or none freed up before the deadline). */
export class NoBackendError extends Error {}

/**
 * Generation on a pool of OpenAI-compatible servers. A conversation (project:mind:player) is routed
 * by consistent hashing with bounded load, so it keeps its backend and that backend's prompt cache;
 * a failed attempt that streamed nothing to the caller is retried once on the next backend of the
 * key's ring order; backends that fail repeatedly or fail their health probe are skipped until they
 * recover (CircuitBreaker).
 */
export class RemotePool implements GenerationBackend {
  readonly mode = "remote" as const;
  readonly backends: RemoteBackend[];
  private readonly ring: HashRing<RemoteBackend>;
  private counts = new CountCache(COUNTS_IN_MEMORY);
  /** the tokenizer the counts in memory are of (identity), null before the first count */
  private countsOf: string | null = null;
  private readonly identities = new WeakMap<RemoteBackend, { described: number; key: Promise<string | null> }>();
  private readonly waiters = new Set<() => void>();
  private probeTimer: ReturnType<typeof setInterval> | null = null;
  private rr = 0;
  private tokenSum = 0;
  private byteSum = 0;
  private disposed = false;
  private tokenizing = 0;
  private readonly tokenizeWaiters: (() => void)[] = [];
  private readonly backgroundWaiters: (() => void)[] = [];

  constructor(private readonly opts: RemotePoolOptions) {
    if (opts.backends.length === 0) throw new Error("generation = \"remote\" needs at least one [[backends]] entry");
    this.backends = opts.backends.map((b, i) => new RemoteBackend(b, `backend-${i}`));
    this.ring = new HashRing(this.backends);
    if (opts.probeIntervalMs && opts.probeIntervalMs > 0) {
      this.probeTimer = setInterval(() => void this.probeAll(), opts.probeIntervalMs);
      this.probeTimer.unref?.();
    }
  }

  /** The key's backends in failover order (first: where its conversation lives while that one is up). */
  orderFor(key: string): RemoteBackend[] {
    return this.ring.order(key);
  }

  /** Probes every backend once (startup, the CLI, the background timer). */
  async probeAll(): Promise<boolean[]> {
    const out = await Promise.all(this.backends.map((b) => b.probe()));
    this.wake();
    return out;
  }

  get contextSize(): number {
    const known = this.backends.map((b) => b.contextSize).filter((n): n is number => typeof n === "number" && n > 0);
    return known.length ? Math.min(...known) : this.opts.fallbackContextSize;
  }

  /**
   * The smallest model any server reported serving: the prompt is built before a turn is routed, and a conversation
   * moves to another server when its own is down, so a turn's text is written for the least of them (the same
   * choice as contextSize's). Null while no server reported one.
   */
  get modelParameters(): number | null {
    const known = this.backends.map((b) => b.parameters).filter((n): n is number => n !== null);
    return known.length ? Math.min(...known) : null;
  }

  /** Exact when this text went through a server's /tokenize before (this run or, with a count store, an earlier one); otherwise bytes × the tokens per byte seen so far (with a margin). */
  countTokens(text: string): number {
    const known = this.exact(text);
    if (known !== undefined) return known;
    const bytes = byteBound(text);
    if (this.byteSum < 256) return bytes;
    return Math.ceil(bytes * Math.min(1, (this.tokenSum / this.byteSum) * 1.15));
  }

  /** The server's count of this text if one was made (in memory, else the kept store's, for the same tokenizer). */
  private exact(text: string): number | undefined {
    const hit = this.counts.peek(text);
    if (hit !== undefined || !this.countsOf || !this.opts.countStore) return hit;
    const kept = this.opts.countStore.get(this.countsOf, text);
    if (kept !== undefined) this.counts.set(text, kept);
    return kept;
  }

  countChatTokens(messages: ChatMessage[]): number {
    return chatBound(messages, (t) => this.countTokens(t));
  }

  /**
   * Upper bound of the prompt for the credit reservation: each message through a server's /tokenize
   * (cached, so a follow-up only counts its new messages), the template's markup allowed for per
   * message; a message no server could count is bounded by its UTF-8 bytes.
   */
  async reserveTokens(messages: ChatMessage[]): Promise<number> {
    await this.prepareCounts(messages.map((m) => m.content));
    return chatBound(messages, (t) => this.exact(t) ?? byteBound(t));
  }

  /**
   * Counts these texts by a server's /tokenize (kept, in memory and in the count store): countTokens is then exact
   * for them, the same on every turn and after a restart. True when every text has its exact count.
   */
  async prepareCounts(texts: string[], opts: PrepareOptions = {}): Promise<boolean> {
    if (texts.length === 0) return true;
    const tokenizer = this.backends.find((b) => (b.config.kind === "llama-server" || b.config.kind === "vllm") && b.breaker.allows());
    const key = tokenizer ? await this.identity(tokenizer, opts.background === true).catch(() => null) : null;
    // no server to ask: the counts made before (of the tokenizer last seen) are all there is
    if (!tokenizer || key === null) return texts.every((t) => this.exact(t) !== undefined);
    if (key !== this.countsOf) {
      // another tokenizer (a backend serving another model took over): none of the counts in memory are its
      this.counts = new CountCache(COUNTS_IN_MEMORY);
      this.countsOf = key;
    }
    const missing = [...new Set(texts.filter((c) => this.exact(c) === undefined))];
    if (missing.length === 0) return true;
    const counted = async (batch: string[]) => {
      const many = await this.tokenizeLimited(() => tokenizer.tokenizeMany(batch), opts.background).then(
        (r) => r ?? ("one by one" as const),
        () => null,
      );
      // no answer (down, or slow past the timeout): these stay uncounted, asked again next time, not one by one now
      if (many === null) return;
      const ns = many !== "one by one" ? many : await Promise.all(batch.map((text) => this.tokenizeLimited(() => tokenizer.tokenize(text), opts.background).catch(() => null)));
      // a count of another tokenizer than the one now in memory (it changed meanwhile) is not kept
      if (this.countsOf !== key) return;
      const kept: [string, number][] = [];
      ns.forEach((n, i) => {
        if (n === null) return;
        this.counts.set(batch[i], n);
        kept.push([batch[i], n]);
        this.tokenSum += n;
        this.byteSum += byteBound(batch[i]);
      });
      this.opts.countStore?.put(key, kept);
    };
    const batches = inBatches(missing, TOKENIZE_BATCH_BYTES);
    if (opts.background) for (const b of batches) await counted(b);
    else await Promise.all(batches.map(counted));
    return missing.every((t) => this.exact(t) !== undefined);
  }

  /**
   * The tokenizer's identity: the model the server reported and its token ids of FINGERPRINT_TEXT (asked again
   * once the server was described again, after an outage). Null while the server cannot say.
   */
  private identity(b: RemoteBackend, background: boolean): Promise<string | null> {
    const known = this.identities.get(b);
    if (known && known.described === b.described) return known.key;
    const key = this.tokenizeLimited(() => b.tokenIds(FINGERPRINT_TEXT), background).then((ids) =>
      ids ? `${b.config.kind}:${b.modelName ?? b.config.model}:${Bun.hash.xxHash64(new Int32Array(ids)).toString(16)}` : null,
    );
    const entry = { described: b.described, key };
    this.identities.set(b, entry);
    // a failure is asked again next time
    void key.then((k) => k === null && this.identities.get(b) === entry && this.identities.delete(b)).catch(() => this.identities.get(b) === entry && this.identities.delete(b));
    return key;
  }

  /**
   * At most TOKENIZE_CONCURRENCY /tokenize calls in flight, pool-wide. llama-server serves HTTP from a
   * small fixed thread pool (max(-np + 4, cores - 1) threads): on a 2-core machine with -np 2, bursts of
   * 8 parallel calls (a mind's static prompt is counted piece by piece) now and then left two of them
   * waiting out the 2 s timeout, while bursts of up to 6 never did; and chat requests need threads too.
   * Background calls go one at a time, only while no request's call is in flight or waiting.
   */
  private async tokenizeLimited<T>(call: () => Promise<T>, background = false): Promise<T> {
    const may = () => (background ? this.tokenizing === 0 && this.tokenizeWaiters.length === 0 : this.tokenizing < TOKENIZE_CONCURRENCY);
    while (!may()) await new Promise<void>((resolve) => (background ? this.backgroundWaiters : this.tokenizeWaiters).push(resolve));
    this.tokenizing++;
    try {
      return await call();
    } finally {
      this.tokenizing--;
      (this.tokenizeWaiters.shift() ?? this.backgroundWaiters.shift())?.();
    }
  }

  generate(req: GenerateRequest): Promise<GenerateResult> {
    if (req.jsonSchema) return generateStructured((r) => this.generateOnce(r), { ...req, jsonSchema: req.jsonSchema });
    if (req.tail) return this.generateWithTail(req);
    return this.generateOnce(req);
  }

  /** A typed turn: the words streamed as any reply (ending at the delimiter if the model writes it), then the tail on the same backend. */
  private async generateWithTail(req: GenerateRequest): Promise<GenerateResult> {
    const startedAt = performance.now();
    const words = await this.generateOnce(req);
    if (words.finishReason === "abort" || words.finishReason === "timeout") return words;
    const backend = this.backends.find((b) => b.name === words.backend)!;
    const timeoutMs = (req.timeoutMs ?? this.opts.defaultTimeoutMs) - (performance.now() - startedAt);
    // The words end where the model began writing the tail itself; the tail continues from there.
    const said = { ...words, text: wordsBeforeTail(words.text, tailSignOf(req.tail!)) };
    return { ...said, tail: await remoteTail(backend, req, said, { timeoutMs, countTokens: (t) => this.countTokens(t), log: this.opts.log }) };
  }

  /** One generation: routed, retried once on another backend if nothing reached the caller. */
  async generateOnce(req: GenerateRequest): Promise<RemoteResult> {
    if (this.disposed) throw new Error("the remote pool is disposed");
    const startedAt = performance.now();
    const deadline = startedAt + (req.timeoutMs ?? this.opts.defaultTimeoutMs);
    const promptEstimate = this.countChatTokens(req.messages);
    const tried = new Set<RemoteBackend>();
    let lastError: unknown = null;
    for (let attempt = 0; attempt < 2; attempt++) {
      // The retry goes to the next backend of the key's ring order; with no other one usable, to the same again.
      const backend =
        (await this.acquire(req.conversationKey, tried, deadline, req.signal)) ??
        (attempt > 0 && !req.signal?.aborted ? await this.acquire(req.conversationKey, new Set(), deadline, req.signal) : null);
      if (!backend) {
        if (req.signal?.aborted) return stoppedResult("abort", promptEstimate, startedAt);
        if (performance.now() >= deadline && tried.size > 0) return stoppedResult("timeout", promptEstimate, startedAt);
        throw new NoBackendError(lastError ? `no backend answered: ${message(lastError)}` : "no backend available");
      }
      tried.add(backend);
      const attemptStart = performance.now();
      try {
        let streamed = false;
        const attempt = (seed: number | undefined) =>
          backend.chat({
            key: req.conversationKey,
            messages: req.messages,
            maxTokens: req.maxTokens,
            temperature: req.temperature ?? 0.7,
            seed,
            minTokens: req.minTokens,
            jsonSchema: req.jsonSchema && !backend.schemaUnsupported ? req.jsonSchema : null,
            signal: req.signal,
            timeoutMs: Math.max(1, Math.min(backend.config.timeoutMs, deadline - performance.now())),
            onToken: req.onToken
              ? (t) => {
                  // whitespace alone is no reply yet (the local engine does not even stream it)
                  if (t.trim() !== "") streamed = true;
                  req.onToken!(t);
                }
              : undefined,
            stop: req.tail ? [req.tail.delimiter.trim()] : undefined,
            stopSignal: req.stopSignal,
            repetition: req.repetition,
            avoid: req.avoid,
            promptEstimate,
          });
        let r = await attempt(req.seed);
        if (emptyToResample(r, req, streamed)) r = await resampled(r, () => attempt(req.seed === undefined ? undefined : req.seed + 1), attemptStart);
        // the time to first token includes any failed attempt and the wait for a free backend
        return { ...r, timeToFirstTokenMs: r.timeToFirstTokenMs + (attemptStart - startedAt) };
      } catch (e) {
        // The same prompt overflows anywhere it is sent again: one clear error for the caller to log, no retry.
        if (e instanceof ContextOverflowError) throw new ContextOverflowError(`${backend.name} refused the prompt as longer than its context: ${e.message}`, e.contextSize, e.status);
        lastError = e;
        this.opts.log?.warn("generation backend failed", { backend: backend.name, url: backend.config.url, err: message(e), attempt });
        if (e instanceof AttemptError && e.streamed) throw e;
        // a refused JSON-schema constraint is about the request, not the backend: retry there without it
        if (e instanceof AttemptError && e.status === 400 && req.jsonSchema && backend.schemaUnsupported) tried.delete(backend);
      } finally {
        this.wake();
      }
    }
    throw new NoBackendError(`no backend answered: ${message(lastError)}`);
  }

  /** The backend for this key, waiting (until the deadline) while every usable one is at maxConcurrent. */
  private async acquire(key: string, tried: Set<RemoteBackend>, deadline: number, signal?: AbortSignal): Promise<RemoteBackend | null> {
    for (;;) {
      if (signal?.aborted) return null;
      const usable = this.backends.filter((b) => !tried.has(b) && b.breaker.allows());
      if (usable.length === 0) return null;
      const free = (b: RemoteBackend) => usable.includes(b) && b.inFlight < b.config.maxConcurrent;
      const pick = this.opts.routing === "round-robin" ? this.roundRobin(free) : this.ring.pick(key, free, (b) => b.inFlight);
      if (pick) return pick;
      const left = deadline - performance.now();
      if (left <= 0) return null;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", done);
          this.waiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, left);
        signal?.addEventListener("abort", done, { once: true });
        this.waiters.add(done);
      });
    }
  }

  private roundRobin(free: (b: RemoteBackend) => boolean): RemoteBackend | null {
    for (let i = 0; i < this.backends.length; i++) {
      const b = this.backends[this.rr++ % this.backends.length];
      if (free(b)) return b;
    }
    return null;
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }

  status(): BackendStatus[] {
    return this.backends.map((b) => b.status());
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    if (this.probeTimer) clearInterval(this.probeTimer);
    this.probeTimer = null;
    this.wake();
  }
}

function stoppedResult(finishReason: "abort" | "timeout", _promptEstimate: number, startedAt: number): RemoteResult {
  return {
    text: "",
    promptTokens: 0,
    evaluatedPromptTokens: 0,
    completionTokens: 0,
    finishReason,
    timeToFirstTokenMs: performance.now() - startedAt,
    backend: "",
    cachedPromptTokens: 0,
    slot: -1,
    usageReported: false,
    serverMs: null,
  };
}

/** Consecutive runs of texts of at most `bytes` UTF-8 bytes together (a longer text alone). */
function inBatches(texts: string[], bytes: number): string[][] {
  const out: string[][] = [];
  let size = Infinity;
  for (const t of texts) {
    const n = byteBound(t);
    if (size + n > bytes) {
      out.push([]);
      size = 0;
    }
    out.at(-1)!.push(t);
    size += n;
  }
  return out;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
