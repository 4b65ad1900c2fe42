import { timingSafeEqual, createHash } from "node:crypto";
import type { Db } from "../db/openDatabase.ts";
import { randomBase62 } from "../core/ids.ts";
import { readMeta, writeMeta } from "../db/metaStore.ts";

const KEY = "admin_token";

/**
 * `init`: creates the admin token once; a second run keeps it. The token is
 * kept in the data dir's database so `init` can show it again to whoever can
 * read that file (who could do anything with the data anyway).
 */
export function ensureAdminToken(db: Db): { adminToken: string; created: boolean } {
  const existing = readMeta(db, KEY);
  if (existing) return { adminToken: existing, created: false };
  const token = `lh_admin_${randomBase62(40)}`;
  writeMeta(db, KEY, token);
  return { adminToken: token, created: true };
}

/** The effective admin token: config (`adminToken` / LOREHOLD_ADMIN_TOKEN) wins over the stored one. */
export function effectiveAdminToken(db: Db, configured: string | null): string | null {
  return configured || readMeta(db, KEY);
}

/** Constant-time comparison (hash both sides so lengths match). */
export function tokenMatches(given: string | null, expected: string | null): boolean {
  if (!given || !expected) return false;
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}
