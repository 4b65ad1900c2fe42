import type { SectionCollector } from "../SectionCollector.ts";
import { SKIP, unescapeBackslashes } from "../text.ts";
import { isKeyLike } from "./po.ts";

/**
 * Apple .strings: `"key" = "value";` pairs (keys may be bare identifiers), with `/* *\/` and
 * `//` comments. A scanner over the whole file, so values may span lines. One quiet section
 * per pair, titled by the key when the key is an identifier rather than the English text.
 */
export function extractAppleStrings(content: string, out: SectionCollector): void {
  const s = content.replace(/^\uFEFF/, "");
  const n = s.length;
  let i = 0;
  const fail = (what: string) => {
    const line = s.slice(0, i).split("\n").length;
    out.skipFile(SKIP.parse(`${what} at line ${line}`));
  };
  const skipSpaceAndComments = (): boolean => {
    for (;;) {
      while (i < n && /\s/.test(s[i])) i++;
      if (s.startsWith("//", i)) {
        const nl = s.indexOf("\n", i);
        i = nl < 0 ? n : nl + 1;
      } else if (s.startsWith("/*", i)) {
        const end = s.indexOf("*/", i + 2);
        if (end < 0) return false;
        i = end + 2;
      } else return true;
    }
  };
  const readToken = (): string | null => {
    if (s[i] === '"') {
      let j = i + 1;
      while (j < n && s[j] !== '"') j += s[j] === "\\" ? 2 : 1;
      if (j >= n) return null;
      const raw = s.slice(i + 1, j);
      i = j + 1;
      return unescapeBackslashes(raw);
    }
    const m = /^[\w.:/-]+/.exec(s.slice(i, i + 500));
    if (!m) return null;
    i += m[0].length;
    return m[0];
  };
  for (;;) {
    if (!skipSpaceAndComments()) return fail("unterminated comment");
    if (i >= n) break;
    const key = readToken();
    if (key === null) return fail("expected a quoted key");
    if (!skipSpaceAndComments() || s[i] !== "=") return fail('expected "="');
    i++;
    if (!skipSpaceAndComments()) return fail("unterminated comment");
    const value = readToken();
    if (value === null) return fail("expected a quoted value");
    if (!skipSpaceAndComments() || s[i] !== ";") return fail('expected ";"');
    i++;
    out.add({ title: isKeyLike(key) ? key : null, text: value, kind: "strings-entry", quiet: true, groupKey: isKeyLike(key) ? key : undefined });
  }
}
