/** Helpers shared by the narrative-script formats (Ink, Yarn, Twee, Dialogic). */

/**
 * Remove every `open … close` span (an unclosed one runs to the end), keeping the newlines
 * inside so line-based readers still see the same lines. indexOf-based: linear even when
 * a file is full of unclosed openers, where a lazy regex would go quadratic.
 */
export function stripBlocks(s: string, open: string, close: string): string {
  if (!s.includes(open)) return s;
  let out = "";
  let i = 0;
  for (;;) {
    const start = s.indexOf(open, i);
    if (start < 0) break;
    const end = s.indexOf(close, start + open.length);
    out += s.slice(i, start);
    const stop = end < 0 ? s.length : end + close.length;
    out += s.slice(start, stop).replace(/[^\n]/g, "");
    i = stop;
    if (end < 0) break;
  }
  return out + s.slice(i);
}

/** Drop `/* … *\/` block comments and `//` line comments (not `://` in URLs). */
export function stripComments(content: string): string {
  return stripBlocks(content, "/*", "*/").replace(/(^|[^:\\])\/\/.*$/gm, "$1");
}

/**
 * Ink/Yarn-style braces: `{a|b|c}` alternatives and `{cond: text|else}` keep their words;
 * `{var}` prints and pure logic vanish. Innermost braces are resolved first.
 */
export function flattenBraces(line: string): string {
  let s = line;
  for (let guard = 0; guard < 5 && s.includes("{"); guard++) {
    const next = s.replace(/\{([^{}]*)\}/g, (_m, inner: string) => {
      let body = inner.replace(/^\s*[~&!$]/, "");
      const colon = body.indexOf(":");
      const bar = body.indexOf("|");
      if (colon >= 0 && (bar < 0 || colon < bar)) body = body.slice(colon + 1);
      else if (bar < 0) return "";
      return body
        .split("|")
        .map((p) => p.trim())
        .filter(Boolean)
        .join(" ");
    });
    if (next === s) break;
    s = next;
  }
  return s.replace(/[{}]/g, "");
}

/** Close the gaps left where a variable or tag was removed: "near ." → "near.", "fire, ." → "fire.". */
export function closeGaps(s: string): string {
  return s.replace(/[ \t]+([.,!?;:])/g, "$1").replace(/,([.!?])/g, "$1");
}
