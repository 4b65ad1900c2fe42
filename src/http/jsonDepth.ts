/**
 * The deepest nesting of `[` and `{` in a JSON text, by one pass over its bytes (strings skipped,
 * escapes honoured), stopping as soon as it passes `limit`. It runs before JSON.parse so that a body
 * of 100,000 nested arrays costs a scan, not a parse and a validation that recurse that deep.
 * Malformed text is not its concern: JSON.parse still judges the bodies that pass.
 */
export function exceedsJsonDepth(bytes: Uint8Array, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (inString) {
      if (b === 0x5c) i++; // backslash: the next byte is escaped (a quote or another backslash)
      else if (b === 0x22) inString = false;
      continue;
    }
    if (b === 0x22) inString = true;
    else if (b === 0x5b || b === 0x7b) {
      if (++depth > limit) return true;
    } else if (b === 0x5d || b === 0x7d) depth--;
  }
  return false;
}
