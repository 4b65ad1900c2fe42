import { createProject } from "../../src/projects/projectService.ts";
import { createMind } from "../../src/lore/minds/writeMinds.ts";
import type { ServiceContext } from "../../src/core/context.ts";
import type { MemoryContext } from "../../src/npc/memory/types.ts";

/** Two projects; the first has two minds. */
export function memoryWorld(ctx: ServiceContext) {
  const p1 = createProject(ctx, { name: `Thornhaven-${crypto.randomUUID().slice(0, 8)}` });
  const p2 = createProject(ctx, { name: `Elsewhere-${crypto.randomUUID().slice(0, 8)}` });
  const mind = (projectId: string, key: string, entityName: string) =>
    createMind(ctx, projectId, { key, entityName, personality: "Curious", knowledgeTags: ["general"] }).id;
  return {
    p1: p1.id,
    p1Name: p1.name,
    p2: p2.id,
    garrick: mind(p1.id, "garrick", "Garrick"),
    elena: mind(p1.id, "elena", "Elena"),
    other: mind(p2.id, "garrick", "Garrick"),
  };
}

/** Ids of this player's memory vectors with this mind that LanceDB still holds. */
export async function vectorIds(ctx: MemoryContext, projectId: string, mindId: string, playerId: string): Promise<string[]> {
  const hits = await ctx.vectors.searchMemories({ projectId, entityMindId: mindId, playerId, query: "player", k: 100 });
  return hits.map((h) => h.id).sort();
}

export function insertSession(ctx: ServiceContext, projectId: string, mindId: string, playerId: string, messages: unknown[]): void {
  const now = ctx.clock.now().toISOString();
  ctx.db
    .query(
      `INSERT INTO sessions (id, project_id, mind_id, player_id, messages, turn_count, token_count, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 1, 10, ?, ?)`,
    )
    .run(`sess_${crypto.randomUUID()}`, projectId, mindId, playerId, JSON.stringify(messages), now, now);
}
