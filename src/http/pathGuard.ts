/** The segments a player id follows: `…/players/{playerId}/…`, `…/trust/{playerId}`. */
const PLAYER_ID_AFTER = new Set(["players", "trust"]);

/**
 * Paths are matched as sent, never normalised into another route. Bun resolves dot segments
 * (`..`, `.`, `%2e%2e`, `%2E%2E`) before the server sees the URL, so `DELETE …/documents/..` arrives
 * as `…/projects/{id}/` — which a lenient router would hand to the project's own route. The traces a
 * resolved dot segment leaves are refused here, before routing, with the unknown route's 404:
 *
 * - a trailing slash (`…/documents/..` and `…/documents/.` both end in one), and an empty segment;
 * - a segment that decodes to `.` or `..` (double-encoded forms Bun leaves alone), or holds an encoded
 *   `/` or `\` (`%2F`, `%5C`: a path parameter is one segment, never several; player ids excepted), or a
 *   control character.
 *
 * Returns null when the path may be routed, else the reason (for the log).
 */
export function refusedPath(pathname: string): string | null {
  if (pathname === "/") return null;
  if (pathname.endsWith("/")) return "trailing slash";
  const segments = pathname.split("/").slice(1);
  for (const [i, raw] of segments.entries()) {
    if (raw === "") return "empty segment";
    if (!raw.includes("%")) {
      if (raw === "." || raw === "..") return "dot segment";
      continue;
    }
    let seg: string;
    try {
      seg = decodeURIComponent(raw);
    } catch {
      return "malformed percent-encoding";
    }
    if (seg === "." || seg === "..") return "encoded slash or dot segment";
    // A player id is the caller's own string (the spec allows any, `/` included): the router matches the
    // encoded form as one segment, so `%2F` there cannot reach another route. Everywhere else ids are ours.
    if (/[/\\]/.test(seg) && !PLAYER_ID_AFTER.has(segments[i - 1])) return "encoded slash or dot segment";
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(seg)) return "control character";
  }
  return null;
}
