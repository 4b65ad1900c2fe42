/**
 * Turns a caller's free text into a safe FTS5 MATCH expression: every word
 * becomes a quoted prefix term, all required. Raw user text is never handed
 * to FTS5 (its syntax errors would otherwise surface as 500s).
 * Returns null when the text holds no searchable word.
 */
export function ftsQuery(text: string): string | null {
  const words = text.normalize("NFKC").match(/[\p{L}\p{N}_]+/gu);
  if (!words || words.length === 0) return null;
  return words
    .slice(0, 32)
    .map((w) => `"${w.replaceAll('"', '""')}"*`)
    .join(" ");
}
