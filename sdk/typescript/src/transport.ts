import { httpError, LoreholdError } from "./errors.js";

export interface TransportOptions {
  /** the server's root, e.g. http://127.0.0.1:8080 (a trailing /v1 is accepted) */
  baseUrl: string;
  /** a Server Key (sk_server_…) for interact, an Editor Key (sk_editor_…) for lore and scanner calls */
  apiKey: string;
  /** per-attempt timeout in milliseconds (default 60 000; a streamed reply's whole stream counts) */
  timeoutMs?: number;
  /** how many times a 429 is retried after its Retry-After (default 2) */
  maxRetries?: number;
  /** a Retry-After longer than this (ms) is not waited for: RATE_LIMITED at once (default 10 000) */
  maxRetryDelayMs?: number;
  /** the fetch to use (default: globalThis.fetch) */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /** how to wait before a retry (default: a timer); tests inject a clock */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface CallOptions {
  /** cancels the call (TRANSPORT_ERROR with aborted: true) */
  signal?: AbortSignal;
  /** overrides the client's timeoutMs for this call */
  timeoutMs?: number;
}

interface Resolved {
  base: string;
  timeoutMs: number;
  maxRetries: number;
  maxRetryDelayMs: number;
  fetch: (input: string, init: RequestInit) => Promise<Response>;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

const defaultSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });

/**
 * HTTP for the client: auth header, timeouts, cancellation, the bounded
 * Retry-After policy on 429, and every failure as a LoreholdError. The key
 * is held in a private field and never appears in messages or logs.
 */
export class Transport {
  readonly #apiKey: string;
  readonly #o: Resolved;

  constructor(o: TransportOptions) {
    if (!o || typeof o.baseUrl !== "string" || !o.baseUrl) throw new LoreholdError("CONFIG_ERROR", "baseUrl is required");
    let url: URL;
    try {
      url = new URL(o.baseUrl);
    } catch {
      throw new LoreholdError("CONFIG_ERROR", "baseUrl is not a URL");
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new LoreholdError("CONFIG_ERROR", "baseUrl must be http(s)");
    if (typeof o.apiKey !== "string" || !o.apiKey.trim()) throw new LoreholdError("CONFIG_ERROR", "apiKey is required");
    const num = (v: number | undefined, name: string, dflt: number) => {
      if (v === undefined) return dflt;
      if (typeof v !== "number" || !Number.isFinite(v) || v < 0) throw new LoreholdError("CONFIG_ERROR", `${name} must be a number ≥ 0`);
      return v;
    };
    const f = o.fetch ?? globalThis.fetch;
    if (typeof f !== "function") throw new LoreholdError("CONFIG_ERROR", "no fetch available: pass options.fetch");
    this.#apiKey = o.apiKey.trim();
    this.#o = {
      base: url.toString().replace(/\/+$/, "").replace(/\/v1$/, ""),
      timeoutMs: num(o.timeoutMs, "timeoutMs", 60_000),
      maxRetries: Math.floor(num(o.maxRetries, "maxRetries", 2)),
      maxRetryDelayMs: num(o.maxRetryDelayMs, "maxRetryDelayMs", 10_000),
      fetch: f,
      sleep: o.sleep ?? defaultSleep,
    };
  }

  get baseUrl(): string {
    return this.#o.base;
  }

  /** Never the key. */
  toJSON(): Record<string, unknown> {
    return { baseUrl: this.#o.base, apiKey: "[redacted]" };
  }

  /** A JSON call under /v1; resolves to the parsed 2xx body. */
  async json<T>(method: string, path: string, body: unknown, opts: CallOptions = {}, query?: Record<string, unknown>): Promise<T> {
    const res = await this.send(method, path, opts, { body: body === undefined ? undefined : JSON.stringify(body), contentType: body === undefined ? undefined : "application/json", query });
    try {
      return (await res.response.json()) as T;
    } catch (e) {
      throw this.#transport(e, opts.signal, res.timeout, `HTTP ${res.response.status}: the response is not JSON`, res.response.status);
    } finally {
      res.done();
    }
  }

  /**
   * Sends with retries on 429; resolves to a 2xx response whose body is
   * still to be read (call done() after). `absolute` sends to that URL
   * instead (the scanner's signed upload URL), without the key.
   */
  async send(
    method: string,
    path: string,
    opts: CallOptions,
    req: { body?: RequestInit["body"]; contentType?: string; accept?: string; query?: Record<string, unknown>; absolute?: string },
  ): Promise<{ response: Response; timeout: () => boolean; done: () => void }> {
    for (let attempt = 0; ; attempt++) {
      const { signal, timedOut, done } = this.#signal(opts);
      let response: Response;
      try {
        const headers: Record<string, string> = { accept: req.accept ?? "application/json" };
        if (!req.absolute) headers.authorization = `Bearer ${this.#apiKey}`;
        if (req.contentType) headers["content-type"] = req.contentType;
        response = await this.#o.fetch(req.absolute ?? this.#url(path, req.query), { method, headers, body: req.body, signal });
      } catch (e) {
        done();
        throw this.#transport(e, opts.signal, timedOut);
      }
      if (response.ok) return { response, timeout: timedOut, done };
      let body: unknown = null;
      try {
        const text = await response.text();
        body = text ? JSON.parse(text) : null;
      } catch {
        body = null;
      } finally {
        done();
      }
      if (response.status === 429) {
        const after = retryAfterSeconds(response.headers.get("retry-after"), body);
        const waitMs = (after ?? 1) * 1000;
        if (attempt < this.#o.maxRetries && waitMs <= this.#o.maxRetryDelayMs) {
          try {
            await this.#o.sleep(waitMs, opts.signal);
          } catch (e) {
            throw this.#transport(e, opts.signal, () => false);
          }
          continue;
        }
        throw httpError(429, body, after);
      }
      throw httpError(response.status, body);
    }
  }

  #url(path: string, query?: Record<string, unknown>): string {
    const u = new URL(`${this.#o.base}/v1${path}`);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null) u.searchParams.set(k, String(v));
    return u.toString();
  }

  /** The caller's signal and the timeout as one signal. */
  #signal(opts: CallOptions): { signal: AbortSignal; timedOut: () => boolean; done: () => void } {
    const ctl = new AbortController();
    let timedOut = false;
    const ms = opts.timeoutMs ?? this.#o.timeoutMs;
    const timer = ms > 0 ? setTimeout(() => {
      timedOut = true;
      ctl.abort(new Error("timeout"));
    }, ms) : undefined;
    const onAbort = () => ctl.abort(opts.signal!.reason);
    if (opts.signal?.aborted) ctl.abort(opts.signal.reason);
    else opts.signal?.addEventListener("abort", onAbort, { once: true });
    return {
      signal: ctl.signal,
      timedOut: () => timedOut,
      done: () => {
        clearTimeout(timer);
        opts.signal?.removeEventListener("abort", onAbort);
      },
    };
  }

  #transport(e: unknown, callerSignal: AbortSignal | undefined, timedOut: () => boolean, message?: string, status?: number): LoreholdError {
    if (e instanceof LoreholdError) return e;
    if (timedOut()) return new LoreholdError("TRANSPORT_ERROR", "timed out", { aborted: "timeout", cause: e });
    if (callerSignal?.aborted) return new LoreholdError("TRANSPORT_ERROR", "cancelled", { aborted: true, cause: e });
    if (status !== undefined) return new LoreholdError("REQUEST_FAILED", message ?? "bad response", { status, cause: e });
    // the cause's message may hold the URL, never the key (it is only in a header)
    return new LoreholdError("TRANSPORT_ERROR", message ?? `network error: ${(e as Error)?.message ?? String(e)}`, { cause: e });
  }

  /** Wraps a failure while reading a streamed body. */
  streamFailure(e: unknown, callerSignal: AbortSignal | undefined, timedOut: () => boolean): LoreholdError {
    return this.#transport(e, callerSignal, timedOut);
  }
}

/** Retry-After in seconds: the header (seconds or an HTTP date), else the body's retryAfter. */
export function retryAfterSeconds(header: string | null, body: unknown): number | undefined {
  if (header) {
    if (/^\d+$/.test(header.trim())) return Number(header.trim());
    const at = Date.parse(header);
    if (!Number.isNaN(at)) return Math.max(0, Math.ceil((at - Date.now()) / 1000));
  }
  const b = (body as { retryAfter?: unknown })?.retryAfter;
  return typeof b === "number" && Number.isFinite(b) && b >= 0 ? b : undefined;
}
