import type { Db } from "../db/openDatabase.ts";

/** Every SQL statement on the scene tables (migration 026). Callers hold the write transaction where several go together. */

export interface SceneRow {
  id: string;
  project_id: string;
  player_id: string | null;
  context: string | null;
  last_seq: number;
  turns: number;
  created_at: string;
  last_active_at: string;
}

export interface SceneMindRow {
  mind_id: string;
  talkativeness: number;
  joined_seq: number;
  heard_seq: number;
  joined_at: string;
}

export interface SceneLineRow {
  seq: number;
  mind_id: string | null;
  speaker: string;
  text: string;
  created_at: string;
}

export function insertScene(db: Db, r: Omit<SceneRow, "last_seq" | "turns">): void {
  db.query("INSERT INTO scenes (id, project_id, player_id, context, created_at, last_active_at) VALUES (?, ?, ?, ?, ?, ?)").run(
    r.id,
    r.project_id,
    r.player_id,
    r.context,
    r.created_at,
    r.last_active_at,
  );
}

/** A scene of the caller's project only: another project's id reads as absent. */
export function sceneRow(db: Db, projectId: string, sceneId: string): SceneRow | null {
  return db.query<SceneRow, [string, string]>("SELECT * FROM scenes WHERE id = ? AND project_id = ?").get(sceneId, projectId);
}

export function sceneMinds(db: Db, sceneId: string): SceneMindRow[] {
  return db
    .query<SceneMindRow, [string]>("SELECT mind_id, talkativeness, joined_seq, heard_seq, joined_at FROM scene_minds WHERE scene_id = ? ORDER BY joined_at, rowid")
    .all(sceneId);
}

export function addSceneMind(db: Db, sceneId: string, m: SceneMindRow): void {
  db.query("INSERT INTO scene_minds (scene_id, mind_id, talkativeness, joined_seq, heard_seq, joined_at) VALUES (?, ?, ?, ?, ?, ?)").run(
    sceneId,
    m.mind_id,
    m.talkativeness,
    m.joined_seq,
    m.heard_seq,
    m.joined_at,
  );
}

export function setTalkativeness(db: Db, sceneId: string, mindId: string, talkativeness: number): void {
  db.query("UPDATE scene_minds SET talkativeness = ? WHERE scene_id = ? AND mind_id = ?").run(talkativeness, sceneId, mindId);
}

export function removeSceneMind(db: Db, sceneId: string, mindId: string): void {
  db.query("DELETE FROM scene_minds WHERE scene_id = ? AND mind_id = ?").run(sceneId, mindId);
}

/** How far a member's own conversation has taken the transcript in (its line, or the lines it was given). */
export function markHeard(db: Db, sceneId: string, mindId: string, seq: number): void {
  db.query("UPDATE scene_minds SET heard_seq = MAX(heard_seq, ?) WHERE scene_id = ? AND mind_id = ?").run(seq, sceneId, mindId);
}

/** Appends a line said aloud; returns its number. */
export function appendLine(db: Db, sceneId: string, line: { mindId: string | null; speaker: string; text: string; at: string }): number {
  const seq = db.query<{ last_seq: number }, [string]>("UPDATE scenes SET last_seq = last_seq + 1 WHERE id = ? RETURNING last_seq").get(sceneId)!.last_seq;
  db.query("INSERT INTO scene_lines (scene_id, seq, mind_id, speaker, text, created_at) VALUES (?, ?, ?, ?, ?, ?)").run(
    sceneId,
    seq,
    line.mindId,
    line.speaker,
    line.text,
    line.at,
  );
  return seq;
}

/** Lines numbered above `afterSeq`, oldest first, at most `limit` (the newest ones when there are more). */
export function linesAfter(db: Db, sceneId: string, afterSeq: number, limit: number): SceneLineRow[] {
  return db
    .query<SceneLineRow, [string, number, number]>(
      "SELECT * FROM (SELECT seq, mind_id, speaker, text, created_at FROM scene_lines WHERE scene_id = ? AND seq > ? ORDER BY seq DESC LIMIT ?) ORDER BY seq",
    )
    .all(sceneId, afterSeq, limit);
}

export function countLinesAfter(db: Db, sceneId: string, afterSeq: number): number {
  return db.query<{ n: number }, [string, number]>("SELECT COUNT(*) AS n FROM scene_lines WHERE scene_id = ? AND seq > ?").get(sceneId, afterSeq)!.n;
}

export function touchScene(db: Db, sceneId: string, at: string, turn = false): void {
  db.query(`UPDATE scenes SET last_active_at = ?${turn ? ", turns = turns + 1" : ""} WHERE id = ?`).run(at, sceneId);
}

export function updateSceneContext(db: Db, sceneId: string, context: string | null): void {
  db.query("UPDATE scenes SET context = ? WHERE id = ?").run(context, sceneId);
}

export function deleteScene(db: Db, sceneId: string): void {
  db.query("DELETE FROM scenes WHERE id = ?").run(sceneId);
}

/** Scenes idle since before `before` (ISO time), oldest first. */
export function idleScenes(db: Db, before: string, limit: number): { id: string; project_id: string }[] {
  return db
    .query<{ id: string; project_id: string }, [string, number]>("SELECT id, project_id FROM scenes WHERE last_active_at < ? ORDER BY last_active_at LIMIT ?")
    .all(before, limit);
}

export function countScenes(db: Db, projectId: string): number {
  return db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM scenes WHERE project_id = ?").get(projectId)!.n;
}
