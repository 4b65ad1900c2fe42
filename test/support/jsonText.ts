/**
 * The whitespace characters of a JSON text that lie outside its strings (JSON's optional spaces, newlines and
 * indentation), counted by a scan that knows strings and their escapes. A compact tail has none.
 */
export function whitespaceOutsideStrings(text: string): number {
  let n = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === " " || c === "\n" || c === "\t" || c === "\r") n++;
  }
  return n;
}
