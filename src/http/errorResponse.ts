import { ValidationError } from "elysia";
import { ApiError } from "../core/errors.ts";
import type { Logger } from "../ops/logger.ts";

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

/** "limit: Expected integer" lines from a schema validation failure. */
export function validationDetails(error: ValidationError): string[] {
  // Schemas carry their own wording ({error: "limit: ..."}): prefer it to TypeBox's generic text.
  if (typeof error.customError === "string") return [error.customError];
  const seen = new Set<string>();
  for (const e of error.all) {
    const path = "path" in e && e.path ? String(e.path).replace(/^\//, "").replaceAll("/", ".") : "";
    const message = "message" in e ? String(e.message) : "invalid";
    seen.add(path ? `${path}: ${message}` : message);
  }
  return [...seen];
}

/**
 * The one place where errors become wire responses: `{error, ...extra}`.
 * Raw causes are logged, never sent (no stack traces on the wire).
 */
export function errorToResponse(code: string | number, error: unknown, log: Logger, requestId?: string): Response {
  if (error instanceof ApiError) return jsonResponse(error.status, error.toBody(), error.headers);
  switch (code) {
    case "NOT_FOUND":
      return jsonResponse(404, { error: "Not found" });
    case "PARSE":
      return jsonResponse(400, { error: "Invalid request", details: ["body: malformed JSON"] });
    case "VALIDATION":
      return jsonResponse(400, { error: "Invalid request", details: validationDetails(error as ValidationError) });
    case "INVALID_COOKIE_SIGNATURE":
    case "INVALID_FILE_TYPE":
      return jsonResponse(400, { error: "Invalid request" });
  }
  const status = typeof (error as { status?: unknown })?.status === "number" ? (error as { status: number }).status : 500;
  if (status >= 400 && status < 500) return jsonResponse(status, { error: "Invalid request" });
  log.error("unhandled error", { requestId, code: String(code), err: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  return jsonResponse(500, { error: "Internal server error" });
}
