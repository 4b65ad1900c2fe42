/**
 * What a request body may cost before the server reads it as JSON. Every limit here is enforced by
 * the request guard (requestGuard.ts) before routing, on the raw bytes, so a hostile body costs at
 * most its route's cap in memory and a linear scan in time — never a parse of something unbounded.
 */

/** Nesting deeper than this is refused before JSON.parse (no body of the API nests past ~6 levels). */
export const MAX_JSON_DEPTH = 64;

/** The cap of a route not listed below. */
export const DEFAULT_BODY_BYTES = 1024 * 1024;

/**
 * Larger caps, by method and path (first match wins). Sizes follow the spec's field limits with room
 * for JSON escaping: an interaction's history is 50 × 10,000 characters; a scan manifest lists up to
 * 5,000 paths of 1,024 characters; a Lore Document's content has no spec limit, so authoring gets 8 MB.
 */
const ROUTE_CAPS: Array<{ method: string; path: RegExp; bytes: number }> = [
  { method: "POST", path: /^\/v1\/npc\/interact$/, bytes: 2 * 1024 * 1024 },
  { method: "POST", path: /^\/admin\/v1\/projects\/[^/]+\/interact-preview$/, bytes: 2 * 1024 * 1024 },
  { method: "POST", path: /^\/v1\/scanner\/(estimate|submit-archive|commit|rescan)$/, bytes: 8 * 1024 * 1024 },
  { method: "POST", path: /^\/admin\/v1\/projects\/[^/]+\/documents$/, bytes: 8 * 1024 * 1024 },
  { method: "PATCH", path: /^\/admin\/v1\/projects\/[^/]+\/documents\/[^/]+$/, bytes: 8 * 1024 * 1024 },
];

/** The body cap of `method path`, in bytes. */
export function bodyCapFor(method: string, path: string): number {
  for (const r of ROUTE_CAPS) if (r.method === method && r.path.test(path)) return r.bytes;
  return DEFAULT_BODY_BYTES;
}

/**
 * Routes whose body is not JSON and has its own limits: the signed archive upload streams a ZIP of
 * up to 200 MB to disk (src/scanner/acceptUpload.ts checks its type, size and signature).
 */
export function isRawBodyRoute(method: string, path: string): boolean {
  return method === "PUT" && /^\/v1\/scanner\/uploads\/[^/]+$/.test(path);
}

/** Methods whose body, if any, the API never reads: bounded by the default cap, then dropped. */
export const BODYLESS_METHODS = new Set(["GET", "HEAD", "DELETE", "OPTIONS"]);
