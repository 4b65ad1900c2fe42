/**
 * Bytes of an archive entry → text for extractFile: honours a UTF-8 / UTF-16 byte-order mark
 * (Apple .strings and .resx files are often UTF-16) and otherwise decodes UTF-8, turning
 * invalid bytes into U+FFFD, which extractFile then reports as binary.
 */
export function decodeText(bytes: Uint8Array): string {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes.subarray(2));
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes.subarray(2));
  return new TextDecoder("utf-8", { ignoreBOM: false }).decode(bytes);
}
