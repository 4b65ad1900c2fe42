import { tailSignOf, wordsBeforeTail } from "../../llm/tailSign.ts";
import { byteBound, chatBound } from "../estimateTokens.ts";
import { generateStructured } from "../structured.ts";
import type { BackendConfig, BackendStatus, ChatMessage, GenerateRequest, GenerateResult, GenerationBackend } from "../types.ts";
import { CountCache } from "./CountCache.ts";
import { HashRing } from "./HashRing.ts";
import { AttemptError, ContextOverflowError } from "./attemptErrors.ts";
import { RemoteBackend, type RemoteResult } from "./RemoteBackend.ts";
import { remoteTail } from "./remoteTail.ts";

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
}

/** /tokenize calls a pool has in flight at once (see tokenizeLimited). */
const TOKENIZE_CONCURRENCY = 4;

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
  private readonly counts = new CountCache();
  private readonly waiters = new Set<() => void>();
  private probeTimer: ReturnType<typeof setInterval> | null = null;
  private rr = 0;
  private tokenSum = 0;
  private byteSum = 0;
  private disposed = false;
  private tokenizing = 0;
  private readonly tokenizeWaiters: (() => void)[] = [];

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

  /** Exact when this text went through a server's /tokenize before; otherwise bytes × the tokens per byte seen so far (with a margin). */
  countTokens(text: string): number {
    const known = this.counts.peek(text);
    if (known !== undefined) return known;
    const bytes = byteBound(text);
    if (this.byteSum < 256) return bytes;
    return Math.ceil(bytes * Math.min(1, (this.tokenSum / this.byteSum) * 1.15));
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
    return chatBound(messages, (t) => this.counts.peek(t) ?? byteBound(t));
  }

  /** Counts these texts by a server's /tokenize (cached): countTokens is then exact for them, the same on every turn. */
  async prepareCounts(texts: string[]): Promise<void> {
    const missing = [...new Set(texts.filter((c) => this.counts.peek(c) === undefined))];
    if (missing.length === 0) return;
    const tokenizer = this.backends.find((b) => (b.config.kind === "llama-server" || b.config.kind === "vllm") && b.breaker.allows());
    if (!tokenizer) return;
    await Promise.all(
      missing.map(async (text) => {
        const n = await this.tokenizeLimited(() => tokenizer.tokenize(text)).catch(() => null);
        if (n === null) return;
        this.counts.set(text, n);
        this.tokenSum += n;
        this.byteSum += byteBound(text);
      }),
    );
  }

  /**
   * At most TOKENIZE_CONCURRENCY /tokenize calls in flight, pool-wide. llama-server serves HTTP from a
   * small fixed thread pool (max(-np + 4, cores - 1) threads): on a 2-core machine with -np 2, bursts of
   * 8 parallel calls (a mind's static prompt is counted piece by piece) now and then left two of them
   * waiting out the 2 s timeout, while bursts of up to 6 never did; and chat requests need threads too.
   */
  private async tokenizeLimited<T>(call: () => Promise<T>): Promise<T> {
    while (this.tokenizing >= TOKENIZE_CONCURRENCY) await new Promise<void>((resolve) => this.tokenizeWaiters.push(resolve));
    this.tokenizing++;
    try {
      return await call();
    } finally {
      this.tokenizing--;
      this.tokenizeWaiters.shift()?.();
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
        const r = await backend.chat({
          key: req.conversationKey,
          messages: req.messages,
          maxTokens: req.maxTokens,
          temperature: req.temperature ?? 0.7,
          seed: req.seed,
          minTokens: req.minTokens,
          jsonSchema: req.jsonSchema && !backend.schemaUnsupported ? req.jsonSchema : null,
          signal: req.signal,
          timeoutMs: Math.max(1, Math.min(backend.config.timeoutMs, deadline - performance.now())),
          onToken: req.onToken,
          stop: req.tail ? [req.tail.delimiter.trim()] : undefined,
          stopSignal: req.stopSignal,
          repetition: req.repetition,
          avoid: req.avoid,
          promptEstimate,
        });
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

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
