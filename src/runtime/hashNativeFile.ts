/**
 * xxHash3-64 as 16 hex digits. Chosen over SHA-256 because it is checked on
 * every start: ~30 ms for the ~80 MB of natives against ~130 ms for SHA-256.
 * It guards against truncation and corruption, not against an attacker who
 * can already write to the cache folder.
 */
export function hashNativeFile(content: Uint8Array): string {
  return Bun.hash.xxHash3(content).toString(16).padStart(16, "0");
}
