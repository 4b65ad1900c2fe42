import { createHash } from "node:crypto";
import { ApiError, notFound } from "../core/errors.ts";
import { newId, randomBase62 } from "../core/ids.ts";
import { nowIso, type ServiceContext } from "../core/context.ts";
import { getProject } from "../projects/projectService.ts";
import { insertKey, keyByHash, keyById, keysOfProject, markRevoked, touchKey, type KeyRow, type KeyType } from "./apiKeyStore.ts";

export type { KeyType };

/** last_used_at is written at most this often per key: a busy key costs one write a minute, not one per request. */
export const LAST_USED_RESOLUTION_MS = 60_000;

export const KEY_PREFIX: Record<KeyType, string> = { server: "sk_server_", editor: "sk_editor_" };
/** 43 base62 characters ≈ 256 bits of randomness. */
const SECRET_LENGTH = 43;
const KEY_SHAPE = /^sk_(server|editor)_[0-9A-Za-z]{43}$/;

export interface ApiKeyInfo {
  id: string;
  projectId: string;
  type: KeyType;
  name: string | null;
  /** display form: prefix + … + last 4 characters */
  display: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface Principal {
  keyId: string;
  projectId: string;
  type: KeyType;
}

export const hashKey = (key: string): string => createHash("sha256").update(key).digest("hex");

/** Creates a key; the plain key is returned here and never again (only its SHA-256 is stored). */
export function createApiKey(
  ctx: ServiceContext,
  input: { projectId: string; type: KeyType; name?: string | null },
): { id: string; key: string; type: KeyType; projectId: string } {
  if (input.type !== "server" && input.type !== "editor") {
    throw new ApiError(400, "Invalid request", { details: ["type: must be 'server' or 'editor'"] });
  }
  getProject(ctx, input.projectId);
  const key = KEY_PREFIX[input.type] + randomBase62(SECRET_LENGTH);
  const id = newId("key");
  insertKey(ctx.db, {
    id,
    projectId: input.projectId,
    type: input.type,
    name: input.name ?? null,
    hash: hashKey(key),
    prefix: KEY_PREFIX[input.type],
    last4: key.slice(-4),
    at: nowIso(ctx),
  });
  return { id, key, type: input.type, projectId: input.projectId };
}

const toInfo = (r: KeyRow): ApiKeyInfo => ({
  id: r.id,
  projectId: r.project_id,
  type: r.type,
  name: r.name,
  display: `${r.prefix}…${r.last4}`,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  revokedAt: r.revoked_at,
});

export function listApiKeys(ctx: ServiceContext, projectId: string): ApiKeyInfo[] {
  getProject(ctx, projectId);
  return keysOfProject(ctx.db, projectId).map(toInfo);
}

export function revokeApiKey(ctx: ServiceContext, id: string, projectId?: string): { id: string; revoked: true } {
  const row = keyById(ctx.db, id);
  if (!row || (projectId && row.project_id !== projectId)) throw notFound("API key");
  if (!row.revoked_at) markRevoked(ctx.db, id, nowIso(ctx));
  return { id, revoked: true };
}

/**
 * Looks a bearer token up by its hash. Anything not shaped like one of our
 * keys (a JWT, a truncated key) is refused before touching the database.
 */
export function authenticateKey(ctx: ServiceContext, token: string | null): Principal | null {
  if (!token || !KEY_SHAPE.test(token)) return null;
  const row = keyByHash(ctx.db, hashKey(token));
  if (!row || row.revoked_at) return null;
  noteUse(ctx, row);
  return { keyId: row.id, projectId: row.project_id, type: row.type };
}

/**
 * Records when a key was last used, at most once per LAST_USED_RESOLUTION_MS.
 * Best effort: a busy database must not fail the request it authenticates.
 */
function noteUse(ctx: ServiceContext, row: { id: string; last_used_at: string | null }): void {
  const now = ctx.clock.now();
  if (row.last_used_at && now.getTime() - Date.parse(row.last_used_at) < LAST_USED_RESOLUTION_MS) return;
  try {
    touchKey(ctx.db, row.id, now.toISOString());
  } catch {
    // the next use tries again
  }
}

/** `Authorization: Bearer <token>` → token, or null when absent or malformed. */
export function bearerToken(header: string | null | undefined): string | null {
  if (!header) return null;
  // The spec's exact form: one space, one token. `Bearer  key` is refused; trailing whitespace never
  // arrives (HTTP strips it from header values before the server sees them).
  const m = /^Bearer (\S+)$/i.exec(header);
  return m ? m[1] : null;
}
