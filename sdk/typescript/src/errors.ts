/**
 * The spec's client-side SDK codes (interface spec, "Errors"): every failure
 * of this client is a LoreholdError with one of them.
 */
export type LoreholdErrorCode =
  | "CONFIG_ERROR" // no HTTP status: the client is set up wrong (no base URL, no key, bad option)
  | "VALIDATION_ERROR" // 400
  | "AUTH_FAILED" // 401
  | "INSUFFICIENT_CREDITS" // 402
  | "RATE_LIMITED" // 429 (after the bounded retries)
  | "SERVICE_UNAVAILABLE" // 503
  | "REQUEST_FAILED" // any other HTTP error (403, 404, 409, 413, 500, ...)
  | "TRANSPORT_ERROR"; // no HTTP status: network failure, timeout, cancellation, a broken stream

export class LoreholdError extends Error {
  override readonly name = "LoreholdError";
  constructor(
    readonly code: LoreholdErrorCode,
    message: string,
    readonly extra: {
      /** HTTP status, when there was a response */
      status?: number;
      /** the server's `error` string (the spec's exact message) */
      serverError?: string;
      /** the server's whole error body */
      body?: unknown;
      /** seconds to wait, on RATE_LIMITED */
      retryAfter?: number;
      /** TRANSPORT_ERROR: true when the caller's AbortSignal cancelled, "timeout" when the client's timeout did */
      aborted?: true | "timeout";
      cause?: unknown;
    } = {},
  ) {
    super(message, extra.cause !== undefined ? { cause: extra.cause } : undefined);
  }
  get status(): number | undefined {
    return this.extra.status;
  }
  get serverError(): string | undefined {
    return this.extra.serverError;
  }
  get retryAfter(): number | undefined {
    return this.extra.retryAfter;
  }
  /** Problems listed by the server (`details`), if any. */
  get details(): string[] {
    const d = (this.extra.body as { details?: unknown } | undefined)?.details;
    return Array.isArray(d) ? d.filter((x): x is string => typeof x === "string") : [];
  }
}

/** The SDK code of an HTTP error status (spec table). */
export function codeForStatus(status: number): LoreholdErrorCode {
  switch (status) {
    case 400:
      return "VALIDATION_ERROR";
    case 401:
      return "AUTH_FAILED";
    case 402:
      return "INSUFFICIENT_CREDITS";
    case 429:
      return "RATE_LIMITED";
    case 503:
      return "SERVICE_UNAVAILABLE";
    default:
      return "REQUEST_FAILED";
  }
}

/** A LoreholdError for an HTTP error response's status and parsed body. */
export function httpError(status: number, body: unknown, retryAfter?: number): LoreholdError {
  const serverError = typeof (body as { error?: unknown })?.error === "string" ? (body as { error: string }).error : undefined;
  const message = `HTTP ${status}${serverError ? `: ${serverError}` : ""}`;
  return new LoreholdError(codeForStatus(status), message, { status, serverError, body, ...(retryAfter !== undefined ? { retryAfter } : {}) });
}

/** The SDK code of an error event inside an SSE stream (there is no status there; the message says what it was). */
export function streamError(body: unknown): LoreholdError {
  const serverError = typeof (body as { error?: unknown })?.error === "string" ? (body as { error: string }).error : "stream error";
  const code: LoreholdErrorCode = serverError === "Generation failed" ? "SERVICE_UNAVAILABLE" : serverError === "Insufficient credits" ? "INSUFFICIENT_CREDITS" : "REQUEST_FAILED";
  return new LoreholdError(code, `stream: ${serverError}`, { serverError, body });
}
