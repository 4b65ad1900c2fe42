import { createHash } from "node:crypto";
import { ApiError, notFound } from "../core/errors.ts";
import { newId, randomBase62 } from "../core/ids.ts";
import { nowIso, type ServiceContext } from "../core/context.ts";
import { getProject } from "../projects/projectService.ts";

export type KeyType = "server" | "editor";
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
  ctx.db
    .query(
      `INSERT INTO api_keys (id, project_id, type, name, key_hash, prefix, last4, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(id, input.projectId, input.type, input.name ?? null, hashKey(key), KEY_PREFIX[input.type], key.slice(-4), nowIso(ctx));
  return { id, key, type: input.type, projectId: input.projectId };
}

interface KeyRow {
  id: string;
  project_id: string;
  type: KeyType;
  name: string | null;
  prefix: string;
  last4: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
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
  return ctx.db
    .query<KeyRow, [string]>("SELECT * FROM api_keys WHERE project_id = ? ORDER BY created_at, id")
    .all(projectId)
    .map(toInfo);
}

export function revokeApiKey(ctx: ServiceContext, id: string, projectId?: string): { id: string; revoked: true } {
  const row = ctx.db.query<KeyRow, [string]>("SELECT * FROM api_keys WHERE id = ?").get(id);
  if (!row || (projectId && row.project_id !== projectId)) throw notFound("API key");
  if (!row.revoked_at) ctx.db.query("UPDATE api_keys SET revoked_at = ? WHERE id = ?").run(nowIso(ctx), id);
  return { id, revoked: true };
}

/**
 * Looks a bearer token up by its hash. Anything not shaped like one of our
 * keys (a JWT, a truncated key) is refused before touching the database.
 */
export function authenticateKey(ctx: ServiceContext, token: string | null): Principal | null {
  if (!token || !KEY_SHAPE.test(token)) return null;
  const row = ctx.db
    .query<{ id: string; project_id: string; type: KeyType; revoked_at: string | null }, [string]>(
      "SELECT id, project_id, type, revoked_at FROM api_keys WHERE key_hash = ?",
    )
    .get(hashKey(token));
  if (!row || row.revoked_at) return null;
  return { keyId: row.id, projectId: row.project_id, type: row.type };
}

/** `Authorization: Bearer <token>` → token, or null when absent or malformed. */
export function bearerToken(header: string | null | undefined): string | null {
  if (!header) return null;
  // The spec's exact form: one space, one token. `Bearer  key` is refused; trailing whitespace never
  // arrives (HTTP strips it from header values before the server sees them).
  const m = /^Bearer (\S+)$/i.exec(header);
  return m ? m[1] : null;
}
