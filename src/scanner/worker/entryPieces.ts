import { extensionOf } from "../estimate.ts";

/** A big text entry is extracted this many bytes at a time (cut at a blank line). */
export const PIECE_BYTES = 2 * 1024 * 1024;

/** Formats whose sections never span a blank line's paragraph break (a cut there loses nothing but a heading's reach). */
const PIECEWISE_EXTENSIONS = new Set([".txt", ".md", ".markdown"]);

/**
 * Calls `fn` with the entry's bytes, or — for a plain-text or Markdown entry over PIECE_BYTES in
 * UTF-8 — with consecutive pieces of it cut after a blank line, collecting garbage between pieces.
 * Extraction holds several copies of its input (the decoded text, sections, candidates), so one
 * 30 MB entry extracted whole cost ~340 MB; in pieces it costs a few pieces' worth. Structured
 * formats (JSON, YAML, XML …) cannot be cut without parsing them and stay whole.
 */
export function forEachTextPiece(relativePath: string, bytes: Uint8Array, fn: (piece: Uint8Array, last: boolean) => void): void {
  const utf16 = bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff));
  if (bytes.length <= PIECE_BYTES || utf16 || !PIECEWISE_EXTENSIONS.has(extensionOf(relativePath))) return fn(bytes, true);
  for (let start = 0; start < bytes.length; ) {
    const end = pieceEnd(bytes, start);
    fn(bytes.subarray(start, end), end >= bytes.length);
    start = end;
    if (start < bytes.length) Bun.gc(true);
  }
}

/** Where the piece starting at `start` ends: after the last blank line before the limit, else after the last newline, else at the limit (on a UTF-8 character boundary). */
function pieceEnd(bytes: Uint8Array, start: number): number {
  const limit = start + PIECE_BYTES;
  if (limit >= bytes.length) return bytes.length;
  const floor = start + (PIECE_BYTES >> 1);
  let lastNewline = -1;
  for (let i = limit - 1; i > floor; i--) {
    if (bytes[i] !== 0x0a) continue;
    if (lastNewline < 0) lastNewline = i + 1;
    if (bytes[i - 1] === 0x0a || (bytes[i - 1] === 0x0d && bytes[i - 2] === 0x0a)) return i + 1;
  }
  if (lastNewline > 0) return lastNewline;
  let end = limit;
  while (end > start && (bytes[end] & 0xc0) === 0x80) end--; // not inside a multi-byte character
  return end;
}
