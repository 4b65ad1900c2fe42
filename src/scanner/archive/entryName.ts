/** Names longer than this are not kept (a path that long is never a lore file). */
export const MAX_NAME_BYTES = 1024;

const FLAG_UTF8 = 0x800;

// IBM code page 437, bytes 0x80-0xFF: the ZIP spec's encoding when bit 11 is clear.
const CP437_HIGH =
  "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u00a0";

const utf8Strict = new TextDecoder("utf-8", { fatal: true });
const utf8Lenient = new TextDecoder("utf-8");

/**
 * Decodes an entry name. Bit 11 means UTF-8; without it the spec says CP437,
 * but most tools (7-Zip, macOS, Python) write UTF-8 without setting the bit,
 * so valid UTF-8 wins and CP437 is the fallback.
 */
export function decodeEntryName(bytes: Uint8Array, flags: number): string {
  if (flags & FLAG_UTF8) return utf8Lenient.decode(bytes);
  if (bytes.every((b) => b < 0x80)) return String.fromCharCode(...bytes);
  try {
    return utf8Strict.decode(bytes);
  } catch {
    let s = "";
    for (const b of bytes) s += b < 0x80 ? String.fromCharCode(b) : CP437_HIGH[b - 0x80];
    return s;
  }
}

/** The form used to match manifest paths and detect duplicates (macOS zips store NFD). */
export function normalizeEntryName(name: string): string {
  return name.normalize("NFC");
}

/**
 * A name is safe when it is a plain relative path: no absolute or drive
 * prefix, no backslash (Windows tools would read it as a separator), no `..`,
 * `.` or empty segment, no control characters.
 */
export function isSafeEntryPath(name: string): boolean {
  if (name.length === 0) return false;
  if (name.includes("\\")) return false;
  if (name.startsWith("/")) return false;
  if (/^[A-Za-z]:/.test(name)) return false;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return false;
  return name.split("/").every((segment) => segment !== "" && segment !== "." && segment !== "..");
}
