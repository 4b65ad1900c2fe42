/**
 * JSON as game projects write it: `//`, `/* … *\/` and `#` comments and trailing commas
 * are removed outside strings, bare keys (`tips:[…]`) and bare words (`[STATIONS]`) are quoted, and Java's float suffix (`0.5f`) dropped, in one linear pass, so
 * JSON.parse can read the rest. Starsector's loose JSON uses `#` comments and bare keys; outside a
 * string neither can appear in strict JSON, so reading them this way changes no valid file.
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
    if (c === 35) {
      out += s.slice(from, i);
      const end = s.indexOf("\n", i);
      i = end < 0 ? n : end;
      from = i;
      continue;
    }
    if (isKeyStart(c) && (bareKeyAt(s, i) || bareValueAt(s, i))) {
      let j = i + 1;
      while (j < n && isKeyPart(s.charCodeAt(j))) j++;
      out += `${s.slice(from, i)}"${s.slice(i, j)}"`;
      i = from = j;
      continue;
    }
    if (c >= 48 && c <= 57 && (s[i + 1] === "f" || s[i + 1] === "F") && !isKeyPart(s.charCodeAt(i + 2))) {
      // A Java float literal (`0.5f`): the number without its suffix.
      out += s.slice(from, i + 1);
      i += 2;
      from = i;
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
        if (s[j] === "#" || (s[j] === "/" && s[j + 1] === "/")) j = (s.indexOf("\n", j) + 1 || n + 1) - 1;
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

const isKeyStart = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36;
const isKeyPart = (c: number) => isKeyStart(c) || (c >= 48 && c <= 57);

/** A bare word right after `{` or `,` (blanks between) and before `:` is an object key. */
function bareKeyAt(s: string, i: number): boolean {
  let k = i - 1;
  while (k >= 0 && (s[k] === " " || s[k] === "\t" || s[k] === "\n" || s[k] === "\r")) k--;
  if (k >= 0 && s[k] !== "{" && s[k] !== ",") return false;
  let j = i + 1;
  while (j < s.length && isKeyPart(s.charCodeAt(j))) j++;
  while (j < s.length && (s[j] === " " || s[j] === "\t")) j++;
  return s[j] === ":";
}

/** A bare word in a value's place (`"layers":[STATIONS]`) other than true, false and null is a string. */
function bareValueAt(s: string, i: number): boolean {
  let k = i - 1;
  while (k >= 0 && (s[k] === " " || s[k] === "\t" || s[k] === "\n" || s[k] === "\r")) k--;
  if (k < 0 || (s[k] !== ":" && s[k] !== "[" && s[k] !== ",")) return false;
  let j = i + 1;
  while (j < s.length && isKeyPart(s.charCodeAt(j))) j++;
  const word = s.slice(i, j);
  return word !== "true" && word !== "false" && word !== "null";
}
