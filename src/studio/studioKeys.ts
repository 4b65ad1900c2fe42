import type { ServiceContext } from "../core/context.ts";
import { authenticateKey, createApiKey, revokeApiKey, type KeyType } from "../auth/apiKeys.ts";
import { keysOfProject } from "../auth/apiKeyStore.ts";

export const STUDIO_KEY_NAME: Record<KeyType, string> = { editor: "Lorehold Studio (editor)", server: "Lorehold Studio (server)" };

/**
 * The keys the Studio uses to call /v1 on a signed-in admin's behalf: real
 * API keys (listed with the project's others, named "Lorehold Studio"), so
 * /v1 applies exactly its own rules. The plain key lives only in this
 * process; a new process revokes the previous process's Studio keys and
 * makes fresh ones on first use. A key revoked by hand is replaced.
 */
export class StudioKeys {
  private keys = new Map<string, string>();

  constructor(private ctx: ServiceContext) {}

  key(projectId: string, type: KeyType): string {
    const id = `${projectId}:${type}`;
    const known = this.keys.get(id);
    if (known && authenticateKey(this.ctx, known)) return known;
    const stale = keysOfProject(this.ctx.db, projectId).filter((k) => k.type === type && k.name === STUDIO_KEY_NAME[type] && !k.revoked_at);
    for (const k of stale) revokeApiKey(this.ctx, k.id, projectId);
    const created = createApiKey(this.ctx, { projectId, type, name: STUDIO_KEY_NAME[type] });
    this.keys.set(id, created.key);
    return created.key;
  }
}
