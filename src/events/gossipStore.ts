import type { Db } from "../db/openDatabase.ts";

/** mind_gossip (024_events): how readily each mind passes on what it knows. The events feature owns it. */

export function gossipLevels(db: Db, projectId: string): Map<string, string> {
  return new Map(
    db.query<{ mind_id: string; level: string }, [string]>("SELECT mind_id, level FROM mind_gossip WHERE project_id = ?").all(projectId).map((r) => [r.mind_id, r.level]),
  );
}

export function upsertGossipLevel(db: Db, projectId: string, mindId: string, level: string, at: string): void {
  db.query(
    `INSERT INTO mind_gossip (mind_id, project_id, level, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (mind_id) DO UPDATE SET level = excluded.level, updated_at = excluded.updated_at`,
  ).run(mindId, projectId, level, at);
}
