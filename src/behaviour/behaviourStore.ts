import type { Db } from "../db/openDatabase.ts";
import { parseJsonColumn } from "../core/json.ts";
import type { BehaviourInput } from "./behaviourModel.ts";

/** mind_behaviour: the behaviour feature owns this table (a mind's authored behaviour, as JSON). */

export function readBehaviour(db: Db, projectId: string, mindId: string): BehaviourInput | null {
  const r = db
    .query<{ behaviour: string }, [string, string]>("SELECT behaviour FROM mind_behaviour WHERE mind_id = ? AND project_id = ?")
    .get(mindId, projectId);
  return r ? parseJsonColumn<BehaviourInput | null>(r.behaviour, null) : null;
}

/** Every mind's behaviour in a project, by mind id (the admin list, pack export). */
export function projectBehaviours(db: Db, projectId: string): Map<string, BehaviourInput> {
  const rows = db.query<{ mind_id: string; behaviour: string }, [string]>("SELECT mind_id, behaviour FROM mind_behaviour WHERE project_id = ?").all(projectId);
  const out = new Map<string, BehaviourInput>();
  for (const r of rows) {
    const b = parseJsonColumn<BehaviourInput | null>(r.behaviour, null);
    if (b) out.set(r.mind_id, b);
  }
  return out;
}

/** Stores (or, with null, removes) a mind's behaviour; returns whether anything changed. The caller holds the write transaction. */
export function writeBehaviour(db: Db, projectId: string, mindId: string, behaviour: BehaviourInput | null, at: string): boolean {
  const before = db.query<{ behaviour: string }, [string]>("SELECT behaviour FROM mind_behaviour WHERE mind_id = ?").get(mindId);
  if (behaviour === null) {
    if (!before) return false;
    db.query("DELETE FROM mind_behaviour WHERE mind_id = ?").run(mindId);
    return true;
  }
  const text = JSON.stringify(behaviour);
  if (before?.behaviour === text) return false;
  db.query(
    `INSERT INTO mind_behaviour (mind_id, project_id, behaviour, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT(mind_id) DO UPDATE SET behaviour = excluded.behaviour, updated_at = excluded.updated_at`,
  ).run(mindId, projectId, text, at);
  return true;
}
