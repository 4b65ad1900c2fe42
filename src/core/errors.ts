/**
 * The one error vocabulary of Lorehold. Services throw ApiError with the HTTP
 * status, the spec's exact `error` string and any extra wire fields
 * (retryAfter, currentStatus, creditsNeeded, ...). The HTTP layer converts it
 * once (see src/http/errorHandler.ts); the CLI prints it as {"error": ...}.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(error);
    this.name = "ApiError";
  }

  toBody(): Record<string, unknown> {
    return { error: this.error, ...this.extra };
  }
}

/** 400 `Invalid request` with the reason(s) as `details`. */
export function invalidRequest(...details: string[]): ApiError {
  return new ApiError(400, "Invalid request", details.length ? { details } : {});
}

export function notFound(what: string): ApiError {
  return new ApiError(404, `${what} not found`);
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}
