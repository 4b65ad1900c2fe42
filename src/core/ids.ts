import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/** Base62 text of `bytes` random bytes (rejection-free: modulo bias is irrelevant for ids). */
export function randomBase62(length: number): string {
  const bytes = randomBytes(length);
  let out = "";
  for (let i = 0; i < length; i++) out += ALPHABET[bytes[i] % 62];
  return out;
}

/** Opaque, prefixed ids: `mind_3kf9...`. The prefix tells a human what the id names. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBase62(20)}`;
}
