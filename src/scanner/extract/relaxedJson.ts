/**
 * JSON as game projects write it: `//` and `/* … *\/` comments and trailing commas
 * are removed outside strings, in one linear pass, so JSON.parse can read the rest.
 */
export function relaxJson(s: string): string {
  let out = "";
  let from = 0;
  let i = 0;
  const n = s.length;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c === 34) {
      // a string: skip to its closing quote (escapes included)
      i++;
      while (i < n && s.charCodeAt(i) !== 34) i += s.charCodeAt(i) === 92 ? 2 : 1;
      i++;
      continue;
    }
    if (c === 47 && (s[i + 1] === "/" || s[i + 1] === "*")) {
      out += s.slice(from, i);
      const end = s[i + 1] === "/" ? s.indexOf("\n", i) : s.indexOf("*/", i + 2);
      i = end < 0 ? n : s[i + 1] === "/" ? end : end + 2;
      from = i;
      continue;
    }
    if (c === 44) {
      // a comma followed (after blanks and comments) by } or ] is trailing
      let j = i + 1;
      for (;;) {
        while (j < n && /\s/.test(s[j])) j++;
        if (s[j] === "/" && s[j + 1] === "/") j = (s.indexOf("\n", j) + 1 || n + 1) - 1;
        else if (s[j] === "/" && s[j + 1] === "*") j = (s.indexOf("*/", j + 2) + 2 || n + 1) - 1;
        else break;
      }
      if (s[j] === "}" || s[j] === "]") {
        out += s.slice(from, i);
        from = i + 1;
      }
    }
    i++;
  }
  return out + s.slice(from);
}
