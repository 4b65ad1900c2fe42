import type { ServiceContext } from "../core/context.ts";
import { authenticateKey, createApiKey, type KeyType } from "../auth/apiKeys.ts";
import { deleteKeyRow, keysOfProject } from "../auth/apiKeyStore.ts";
import { writeTx } from "../db/openDatabase.ts";

export const STUDIO_KEY_NAME: Record<KeyType, string> = { editor: "Lorehold Studio (editor)", server: "Lorehold Studio (server)" };

/**
 * The keys the Studio uses to call /v1 on a signed-in admin's behalf: real
 * API keys (listed with the project's others, named "Lorehold Studio"), so
 * /v1 applies exactly its own rules. The plain key lives only in this
 * process, so a key made by an earlier process can never be used again: on
 * first use a process deletes the Studio's earlier keys of that project and
 * type (revoked or not) and makes a fresh one, and a key revoked by hand is
 * deleted and replaced the same way. A project holds at most one Studio key
 * of each type, however often the server restarts.
 */
export class StudioKeys {
  private keys = new Map<string, string>();

  constructor(private ctx: ServiceContext) {}

  key(projectId: string, type: KeyType): string {
    const id = `${projectId}:${type}`;
    const known = this.keys.get(id);
    if (known && authenticateKey(this.ctx, known)) return known;
    const created = writeTx(this.ctx.db, () => {
      for (const k of keysOfProject(this.ctx.db, projectId)) if (k.type === type && k.name === STUDIO_KEY_NAME[type]) deleteKeyRow(this.ctx.db, k.id);
      return createApiKey(this.ctx, { projectId, type, name: STUDIO_KEY_NAME[type] });
    });
    this.keys.set(id, created.key);
    return created.key;
  }
}
