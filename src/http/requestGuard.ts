import { randomUUID } from "node:crypto";
import type { Logger } from "../ops/logger.ts";
import { BODYLESS_METHODS, bodyCapFor, isRawBodyRoute, MAX_JSON_DEPTH } from "./bodyLimits.ts";
import { jsonResponse } from "./errorResponse.ts";
import { exceedsJsonDepth } from "./jsonDepth.ts";
import { refusedPath } from "./pathGuard.ts";
import { drainBriefly, LINGER_MS, readBodyCapped } from "./readBodyCapped.ts";

export interface GuardOptions {
  /** how long a body may take to arrive (config bodyTimeoutSeconds) */
  bodyTimeoutMs: number;
  log: Logger;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The gate in front of the router, for every request (over a socket and in process): the path is
 * checked (pathGuard.ts), then the body, as bytes, before anything parses it —
 *
 * 1. bodies are JSON: a body with another Content-Type is 415, whatever the route would do with it;
 * 2. a declared Content-Length over the route's cap is 413 at once; an undeclared one is read as it
 *    arrives and cut at the cap (413), so no body is ever buffered past its cap;
 * 3. the body has `bodyTimeoutMs` to arrive (408), apart from the route's reply budget;
 * 4. invalid UTF-8 is 400; nesting deeper than MAX_JSON_DEPTH is 400 (checked by a byte scan).
 *
 * A body that passes is handed on as text in a new Request (same URL, headers and abort signal).
 * Bodies on GET, HEAD, DELETE and OPTIONS are never read by any route: bounded by the cap, then dropped.
 * Returns the request to route, or the error response to send.
 */
export async function guardRequest(req: Request, opts: GuardOptions): Promise<Request | Response> {
  const url = new URL(req.url);
  const refuse = (status: number, body: Record<string, unknown>, reason: string, close = false): Response => {
    const requestId = req.headers.get("x-request-id")?.slice(0, 100) || randomUUID();
    opts.log.info("request refused before routing", { requestId, method: req.method, path: url.pathname, status, reason });
    return jsonResponse(status, body, { "x-request-id": requestId, ...(close ? { connection: "close" } : {}) });
  };

  const badPath = refusedPath(url.pathname);
  if (badPath) return refuse(404, { error: "Not found" }, badPath);

  if (isRawBodyRoute(req.method, url.pathname)) return req;
  const cap = bodyCapFor(req.method, url.pathname);
  const tooLarge = () => refuse(413, { error: "Request body too large", details: [`body: at most ${cap} bytes`] }, "body over its cap", true);
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > cap) {
    await drainBriefly(req.body, LINGER_MS);
    return tooLarge();
  }
  if (!req.body) return req;

  if (BODYLESS_METHODS.has(req.method)) {
    const drained = await readBodyCapped(req.body, cap, opts.bodyTimeoutMs);
    if (!drained.ok) return drained.why === "too_large" ? tooLarge() : refuse(408, { error: "Request timeout" }, `body ${drained.why}`, true);
    const headers = new Headers(req.headers);
    for (const h of ["content-length", "content-type", "transfer-encoding"]) headers.delete(h);
    return new Request(req.url, { method: req.method, headers, signal: req.signal });
  }

  if (!isJsonContentType(req.headers.get("content-type"))) {
    await drainBriefly(req.body, LINGER_MS);
    return refuse(415, { error: "Unsupported media type", details: ["content-type: must be application/json"] }, "not JSON", true);
  }
  const read = await readBodyCapped(req.body, cap, opts.bodyTimeoutMs);
  if (!read.ok) {
    if (read.why === "too_large") return tooLarge();
    return refuse(408, { error: "Request timeout", details: [`body: not received within ${opts.bodyTimeoutMs / 1000} s`] }, `body ${read.why}`, true);
  }
  let text: string;
  try {
    text = utf8.decode(read.bytes);
  } catch {
    return refuse(400, { error: "Invalid request", details: ["body: not valid UTF-8"] }, "invalid UTF-8");
  }
  if (exceedsJsonDepth(read.bytes, MAX_JSON_DEPTH)) {
    return refuse(400, { error: "Invalid request", details: [`body: nested deeper than ${MAX_JSON_DEPTH} levels`] }, "too deep");
  }
  return new Request(req.url, { method: req.method, headers: req.headers, body: text, signal: req.signal });
}

/** `application/json`, with any parameters (`; charset=utf-8`), or a `+json` type. */
export function isJsonContentType(value: string | null): boolean {
  if (!value) return false;
  const type = value.split(";", 1)[0].trim().toLowerCase();
  return type === "application/json" || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}
