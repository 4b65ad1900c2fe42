/** Helpers shared by the narrative-script formats (Ink, Yarn, Twee, Dialogic). */

/** Drop `/* … *\/` block comments (may span lines, newlines kept) and `//` line comments (not `://` in URLs). */
export function stripComments(content: string): string {
  let s = content;
  if (s.includes("/*")) {
    let out = "";
    let i = 0;
    for (;;) {
      const open = s.indexOf("/*", i);
      if (open < 0) break;
      const close = s.indexOf("*/", open + 2);
      out += s.slice(i, open);
      if (close < 0) {
        i = s.length;
        break;
      }
      out += s.slice(open, close).replace(/[^\n]/g, ""); // keep line numbers stable
      i = close + 2;
    }
    s = out + s.slice(i);
  }
  return s.replace(/(^|[^:\\])\/\/.*$/gm, "$1");
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
