import { cleanReply } from "../../llm/cleanReply.ts";
import type { FinishReason, AvoidText, RepetitionControl } from "../../llm/types.ts";
import { chatBody } from "./chatBody.ts";
import type { BackendConfig, BackendStatus, ChatMessage, GenerateResult } from "../types.ts";
import { CircuitBreaker } from "./CircuitBreaker.ts";
import { LatencyWindow } from "./LatencyWindow.ts";
import { SlotMap } from "./SlotMap.ts";
import { sseData } from "./sseEvents.ts";
import { StreamCleaner } from "./StreamCleaner.ts";
import { AttemptError, ContextOverflowError, contextOverflow } from "./attemptErrors.ts";
import { completeStructured, type GrammarChoice } from "./completeStructured.ts";
import type { Outcome, Timings, Usage } from "./attemptOutcome.ts";

export { AttemptError, ContextOverflowError, contextOverflow } from "./attemptErrors.ts";

export interface AttemptRequest {
  /** ends the reply where it is (finishReason "stop"): GenerateRequest.stopSignal */
  stopSignal?: AbortSignal;
  repetition?: RepetitionControl;
  avoid?: AvoidText[];
  key: string;
  messages: ChatMessage[];
  maxTokens: number;
  temperature: number;
  seed?: number;
  minTokens?: number;
  /** null: no constraint (also when this backend refused one before) */
  jsonSchema: object | null;
  /** llama-server only: a GBNF grammar sent in place of jsonSchema (a typed turn's tail: remoteTail.ts) */
  grammar?: string;
  /** llama-server only: decides the grammar at the rendered prompt before sampling (a typed turn's gate: remoteGate.ts) */
  chooseGrammar?: GrammarChoice;
  /** the model's reply so far, continued rather than answered anew (a typed turn's tail: remoteTail.ts) */
  continuation?: string;
  /** stop strings besides the role markers */
  stop?: string[];
  signal?: AbortSignal;
  timeoutMs: number;
  onToken?: (text: string) => void;
  /** prompt tokens to settle when the server reports no usage (the reservation's estimate) */
  promptEstimate: number;
}

export interface RemoteResult extends GenerateResult {
  backend: string;
  /** prompt tokens the server took from its cache */
  cachedPromptTokens: number;
  /** llama-server slot pinned for the request (-1: none) */
  slot: number;
  /** whether the server reported usage (else the counts are estimates) */
  usageReported: boolean;
  /** the server's own prompt + generation time (llama-server timings), null where not reported */
  serverMs: number | null;
}

const PROBE_TIMEOUT_MS = 2_000;

/** One OpenAI-compatible server: its client, circuit, slots and counters. */
export class RemoteBackend {
  readonly breaker = new CircuitBreaker();
  readonly latency = new LatencyWindow();
  inFlight = 0;
  requests = 0;
  errors = 0;
  cachedPromptTokens = 0;
  contextSize: number | null = null;
  lastError: string | null = null;
  /** the server refused a JSON-schema constraint once: later structured requests go without it */
  schemaUnsupported = false;
  /** the server refused a GBNF grammar once: later tails go under their JSON schema */
  grammarUnsupported = false;
  /** the server answered the action gate's probe without probabilities: later tails sample the choice (remoteGate.ts) */
  gateUnsupported = false;
  /** gated tails whose action choice was sampled because this backend read no probabilities */
  tailGatesUnread = 0;
  /** the model the server reported serving (llama-server's model path, vLLM's model id), null until described */
  modelName: string | null = null;
  /**
   * The model's parameters as llama-server reports them (`/v1/models` → `meta.n_params`), read when the server is
   * described (once, and again after an outage); null for a server that reports none (vLLM, Ollama, OpenAI).
   */
  parameters: number | null = null;
  /** times the server was described: a server back from an outage is described again (it may serve another model now) */
  described = 0;
  private slots: SlotMap | null = null;
  private probed = false;

  constructor(
    readonly config: BackendConfig,
    readonly name: string,
  ) {}

  get id(): string {
    return this.name;
  }

  get weight(): number {
    return this.config.weight;
  }

  private url(path: string): string {
    return `${this.config.url.replace(/\/+$/, "")}${path}`;
  }

  private headers(json = true): Record<string, string> {
    const h: Record<string, string> = {};
    if (json) h["content-type"] = "application/json";
    if (this.config.apiKey) h.authorization = `Bearer ${this.config.apiKey}`;
    return h;
  }

  /** Health check (and, the first time it passes, the server's context size and slots). */
  async probe(timeoutMs = PROBE_TIMEOUT_MS): Promise<boolean> {
    const kind = this.config.kind;
    const path = kind === "llama-server" || kind === "vllm" ? "/health" : "/v1/models";
    try {
      const res = await fetch(this.url(path), { headers: this.headers(false), signal: AbortSignal.timeout(timeoutMs) });
      await res.arrayBuffer().catch(() => {});
      if (!res.ok) throw new Error(`health: HTTP ${res.status}`);
      if (!this.probed) await this.describe(timeoutMs);
      this.probed = true;
      if (this.breaker.state !== "closed") this.breaker.success();
      return true;
    } catch (e) {
      this.lastError = message(e);
      this.breaker.trip();
      this.probed = false;
      return false;
    }
  }

  /** Model facts for routing and budgets: llama-server's /props, vLLM's /v1/models. */
  async describe(timeoutMs = PROBE_TIMEOUT_MS): Promise<{ model: string | null; contextSize: number | null; slots: number | null }> {
    const signal = AbortSignal.timeout(timeoutMs);
    if (this.config.kind === "llama-server") {
      const props = (await (await fetch(this.url("/props"), { headers: this.headers(false), signal })).json()) as {
        default_generation_settings?: { n_ctx?: number };
        total_slots?: number;
        model_path?: string;
      };
      const slots = props.total_slots ?? null;
      if (slots && (!this.slots || this.slots.size !== slots)) this.slots = new SlotMap(slots);
      this.contextSize = props.default_generation_settings?.n_ctx ?? this.contextSize;
      this.modelName = props.model_path ?? null;
      this.parameters = await this.reportedParameters(signal);
      this.described++;
      return { model: props.model_path ?? null, contextSize: this.contextSize, slots };
    }
    const models = (await (await fetch(this.url("/v1/models"), { headers: this.headers(false), signal })).json()) as {
      data?: { id?: string; max_model_len?: number }[];
    };
    const entry = models.data?.find((m) => m.id === this.config.model) ?? models.data?.[0];
    if (entry?.max_model_len) this.contextSize = entry.max_model_len;
    this.modelName = entry?.id ?? null;
    this.described++;
    return { model: entry?.id ?? null, contextSize: this.contextSize, slots: null };
  }

  /** llama-server's count of its model's parameters, or null (an older server, or one that answers without it). */
  private async reportedParameters(signal: AbortSignal): Promise<number | null> {
    try {
      const res = await fetch(this.url("/v1/models"), { headers: this.headers(false), signal });
      if (!res.ok) return null;
      const models = (await res.json()) as { data?: { meta?: { n_params?: unknown } }[] };
      const n = models.data?.[0]?.meta?.n_params;
      return typeof n === "number" && Number.isFinite(n) && n > 0 ? n : null;
    } catch {
      return null;
    }
  }

  /** Tokens of plain text by the server's own tokenizer (llama-server, vLLM); null where there is none. */
  async tokenize(text: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<number | null> {
    const kind = this.config.kind;
    if (kind !== "llama-server" && kind !== "vllm") return null;
    const body = kind === "llama-server" ? { content: text, add_special: false } : { model: this.config.model, prompt: text, add_special_tokens: false };
    const res = await fetch(this.url("/tokenize"), { method: "POST", headers: this.headers(), body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return null;
    const out = (await res.json()) as { tokens?: unknown[]; count?: number };
    return typeof out.count === "number" ? out.count : Array.isArray(out.tokens) ? out.tokens.length : null;
  }

  /** The token ids of plain text by the server's own tokenizer (llama-server, vLLM); null where there is none. */
  async tokenIds(text: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<number[] | null> {
    const kind = this.config.kind;
    if (kind !== "llama-server" && kind !== "vllm") return null;
    const body = kind === "llama-server" ? { content: text, add_special: false } : { model: this.config.model, prompt: text, add_special_tokens: false };
    const res = await fetch(this.url("/tokenize"), { method: "POST", headers: this.headers(), body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return null;
    const out = (await res.json()) as { tokens?: unknown[] };
    return Array.isArray(out.tokens) && out.tokens.every((t) => typeof t === "number") ? (out.tokens as number[]) : null;
  }

  /**
   * Tokens of each text in one call (llama-server), each counted as tokenize(text) counts it alone: its /tokenize
   * takes an array of strings and token ids and tokenizes each string by itself, so the texts are sent with the id
   * -1 between them (no tokenizer yields it) and the answer split there. Null where the server cannot (vLLM, or an
   * answer that does not split into as many parts): the caller counts one text a call.
   */
  async tokenizeMany(texts: string[], timeoutMs = PROBE_TIMEOUT_MS): Promise<number[] | null> {
    if (this.config.kind !== "llama-server" || texts.length === 0) return null;
    const content = texts.flatMap((t, i) => (i === 0 ? [t] : [-1, t]));
    const res = await fetch(this.url("/tokenize"), { method: "POST", headers: this.headers(), body: JSON.stringify({ content, add_special: false }), signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return null;
    const out = (await res.json()) as { tokens?: unknown[] };
    if (!Array.isArray(out.tokens)) return null;
    const counts = [0];
    for (const t of out.tokens) {
      if (t === -1) counts.push(0);
      else counts[counts.length - 1]++;
    }
    return counts.length === texts.length ? counts : null;
  }

  /**
   * One generation. Returns a result for stop/length/abort/timeout-after-tokens; throws AttemptError otherwise.
   * Structured requests to llama-server go to its /completion endpoint (prompt rendered by /apply-template):
   * this llama.cpp build refuses `json_schema` on /v1/chat/completions ("Failed to initialize samplers") while
   * /completion applies it; they are not streamed to anyone, so nothing is lost.
   */
  async chat(req: AttemptRequest): Promise<RemoteResult> {
    const startedAt = performance.now();
    const upstream = new AbortController();
    let reason: "abort" | "timeout" | "stop" | null = null;
    const onAbort = () => {
      reason ??= "abort";
      upstream.abort();
    };
    const onStop = () => {
      reason ??= "stop";
      upstream.abort();
    };
    if (req.signal?.aborted) onAbort();
    req.signal?.addEventListener("abort", onAbort, { once: true });
    req.stopSignal?.addEventListener("abort", onStop, { once: true });
    const timer = setTimeout(() => {
      reason ??= "timeout";
      upstream.abort();
    }, Math.max(1, req.timeoutMs));
    const slot = this.slots ? this.slots.acquire(req.key) : -1;
    const trial = this.breaker.begin();
    this.inFlight++;
    this.requests++;
    const out: Outcome = { raw: "", pieces: 0, streamed: false, firstAt: null, finish: null, usage: null, timings: null };
    const result = (finishReason: FinishReason): RemoteResult => {
      const { usage, timings } = out;
      const promptTokens = usage?.prompt_tokens ?? req.promptEstimate;
      const cached = usage?.prompt_tokens_details?.cached_tokens ?? timings?.cache_n ?? 0;
      return {
        text: cleanReply(out.raw),
        promptTokens,
        evaluatedPromptTokens: timings?.prompt_n ?? Math.max(0, promptTokens - cached),
        completionTokens: usage?.completion_tokens ?? out.pieces,
        finishReason,
        timeToFirstTokenMs: (out.firstAt ?? performance.now()) - startedAt,
        backend: this.name,
        cachedPromptTokens: cached,
        slot,
        usageReported: usage?.prompt_tokens !== undefined,
        serverMs: timings?.prompt_ms !== undefined ? timings.prompt_ms + (timings.predicted_ms ?? 0) : null,
      };
    };
    try {
      if (reason) throw new Error("aborted before the request");
      if ((req.jsonSchema || req.grammar) && this.config.kind === "llama-server") await completeStructured((path, body) => this.post(path, body, upstream.signal), req, slot, out);
      else await this.streamChat(req, slot, upstream.signal, out);
      this.breaker.success();
      this.latency.add(performance.now() - startedAt);
      this.cachedPromptTokens += out.usage?.prompt_tokens_details?.cached_tokens ?? out.timings?.cache_n ?? 0;
      return result(out.finish === "length" ? "length" : "stop");
    } catch (e) {
      if (reason === "abort" || reason === "stop") {
        // the caller left, or ended the reply where it was (the sentence cap): not the backend's fault
        if (trial.trial) this.breaker.success();
        return result(reason);
      }
      const status = e instanceof AttemptError ? e.status : null;
      // A request the server refused (4xx other than timeouts/limits) says nothing about its health.
      const refused = status !== null && status >= 400 && status < 500 && status !== 408 && status !== 429;
      if (e instanceof ContextOverflowError) {
        // The server's context is smaller than the one we fitted to (restarted with another -c / -np, or
        // never described): take the one it reports now, or read its /props again at the next probe.
        if (e.contextSize !== null) this.contextSize = e.contextSize;
        else this.probed = false;
        if (trial.trial) this.breaker.success();
      } else if (refused) {
        if (req.grammar && status === 400) this.grammarUnsupported = true;
        else if (req.jsonSchema && status === 400) this.schemaUnsupported = true;
        if (trial.trial) this.breaker.success();
      } else {
        this.breaker.failure();
      }
      this.errors++;
      this.lastError = reason === "timeout" ? `timed out after ${req.timeoutMs} ms` : message(e);
      if (reason === "timeout" && out.streamed) return result("timeout");
      throw e instanceof AttemptError ? e : new AttemptError(this.lastError, out.streamed);
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener("abort", onAbort);
      req.stopSignal?.removeEventListener("abort", onStop);
      this.inFlight--;
      this.slots?.release(slot);
    }
  }

  /** A POST to the server; an error status thrown as AttemptError (ContextOverflowError for an overflow). */
  async post(path: string, body: unknown, signal: AbortSignal): Promise<Response> {
    const send = () => fetch(this.url(path), { method: "POST", headers: this.headers(), body: JSON.stringify(body), signal });
    let res: Response;
    try {
      res = await send();
    } catch (e) {
      // A kept-alive connection the server closed while idle (llama-server drops them after a few seconds) fails at
      // once with ECONNRESET, before the server saw the request: send it again on a fresh connection.
      if (signal.aborted || (e as { code?: string }).code !== "ECONNRESET") throw e;
      res = await send();
    }
    if (!res.ok) {
      const text = await res.text().catch(() => "");
      const overflow = contextOverflow(text);
      if (overflow) throw new ContextOverflowError(`HTTP ${res.status} ${text.slice(0, 300)}`.trim(), overflow.contextSize, res.status);
      throw new AttemptError(`HTTP ${res.status} ${text.slice(0, 200)}`.trim(), false, res.status);
    }
    return res;
  }

  /** OpenAI chat completions, streamed (SSE), pieces passed on cleaned. */
  private async streamChat(req: AttemptRequest, slot: number, signal: AbortSignal, out: Outcome): Promise<void> {
    const res = await this.post("/v1/chat/completions", chatBody(this.config, req, slot), signal);
    if (!res.body) throw new AttemptError("empty response body", false);
    const cleaner = new StreamCleaner();
    const emit = (text: string) => {
      if (!text || !req.onToken) return;
      out.streamed = true;
      req.onToken(text);
    };
    for await (const data of sseData(res.body)) {
      if (data.trim() === "[DONE]") break;
      let chunk: { choices?: { delta?: { content?: unknown }; finish_reason?: string | null }[]; usage?: Usage; timings?: Timings; error?: unknown };
      try {
        chunk = JSON.parse(data);
      } catch {
        throw new AttemptError(`malformed stream chunk: ${data.slice(0, 80)}`, out.streamed);
      }
      if (chunk === null || typeof chunk !== "object") throw new AttemptError("malformed stream chunk", out.streamed);
      if (chunk.error) {
        const text = JSON.stringify(chunk.error);
        const overflow = out.streamed ? null : contextOverflow(text);
        if (overflow) throw new ContextOverflowError(`server error in stream: ${text.slice(0, 300)}`, overflow.contextSize, null);
        throw new AttemptError(`server error in stream: ${text.slice(0, 200)}`, out.streamed);
      }
      const choice = chunk.choices?.[0];
      const delta = choice?.delta?.content;
      if (typeof delta === "string" && delta !== "") {
        out.firstAt ??= performance.now();
        out.raw += delta;
        out.pieces++;
        emit(cleaner.push(delta));
      }
      if (choice?.finish_reason) out.finish = choice.finish_reason;
      if (chunk.usage) out.usage = chunk.usage;
      if (chunk.timings) out.timings = chunk.timings;
    }
    if (out.finish === null) throw new AttemptError("stream ended before the reply did", out.streamed);
    emit(cleaner.flush());
  }

  status(): BackendStatus {
    const s = this.breaker.state;
    return {
      name: this.name,
      url: this.config.url,
      kind: this.config.kind,
      model: this.config.model,
      state: s === "closed" ? (this.probed || this.requests > 0 ? "up" : "unknown") : s === "open" ? "down" : "half-open",
      inFlight: this.inFlight,
      maxConcurrent: this.config.maxConcurrent,
      requests: this.requests,
      errors: this.errors,
      cachedPromptTokens: this.cachedPromptTokens,
      tailGatesUnread: this.tailGatesUnread,
      latencyP50Ms: this.latency.quantile(0.5),
      latencyP99Ms: this.latency.quantile(0.99),
      contextSize: this.contextSize,
      lastError: this.lastError,
    };
  }
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
