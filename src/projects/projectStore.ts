import type { Db } from "../db/openDatabase.ts";

/** projects, teams (creation) and project_settings: the projects feature owns these tables. */

export interface ProjectRow {
  id: string;
  name: string;
  team_id: string;
  created_at: string;
}

export interface SettingsRow {
  name: string;
  ltm: number | null;
  msl: number | null;
  mst: number | null;
  emr: number | null;
}

export function teamExists(db: Db, teamId: string): boolean {
  return db.query("SELECT id FROM teams WHERE id = ?").get(teamId) !== null;
}

export function insertTeam(db: Db, team: { id: string; name: string; monthlyMicro: number; at: string }): void {
  db.query("INSERT INTO teams (id, name, monthly_allotment_micro, created_at, updated_at) VALUES (?, ?, ?, ?, ?)").run(
    team.id,
    team.name,
    team.monthlyMicro,
    team.at,
    team.at,
  );
}

/** A project row with its (default) settings row. */
export function insertProject(db: Db, p: { id: string; teamId: string; name: string; at: string }): void {
  db.query("INSERT INTO projects (id, team_id, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?)").run(p.id, p.teamId, p.name, p.at, p.at);
  db.query("INSERT INTO project_settings (project_id, updated_at) VALUES (?, ?)").run(p.id, p.at);
}

export function allProjects(db: Db): ProjectRow[] {
  return db.query<ProjectRow, []>("SELECT id, name, team_id, created_at FROM projects ORDER BY created_at, id").all();
}

export function projectById(db: Db, id: string): ProjectRow | null {
  return db.query<ProjectRow, [string]>("SELECT id, name, team_id, created_at FROM projects WHERE id = ?").get(id);
}

export function projectExists(db: Db, id: string): boolean {
  return db.query("SELECT 1 FROM projects WHERE id = ?").get(id) !== null;
}

export function projectsNamed(db: Db, name: string): ProjectRow[] {
  return db.query<ProjectRow, [string]>("SELECT id, name, team_id, created_at FROM projects WHERE name = ?").all(name);
}

export function teamOfProject(db: Db, projectId: string): string | null {
  return db.query<{ team_id: string }, [string]>("SELECT team_id FROM projects WHERE id = ?").get(projectId)?.team_id ?? null;
}

export function setProjectName(db: Db, id: string, name: string, at: string): void {
  db.query("UPDATE projects SET name = ?, updated_at = ? WHERE id = ?").run(name, at, id);
}

/** Deletes the project; its rows in other tables go with it (ON DELETE CASCADE). */
export function deleteProjectRow(db: Db, id: string): void {
  db.query("DELETE FROM projects WHERE id = ?").run(id);
}

/** The project's name and stored settings (nulls where unset); null when there is no such project. */
export function settingsRow(db: Db, projectId: string): SettingsRow | null {
  return db
    .query<SettingsRow, [string]>(
      `SELECT p.name, s.long_term_memory_enabled AS ltm, s.max_session_length AS msl,
              s.max_session_tokens AS mst, s.enhanced_memory_retrieval AS emr
       FROM projects p LEFT JOIN project_settings s ON s.project_id = p.id WHERE p.id = ?`,
    )
    .get(projectId);
}

export function upsertSettings(
  db: Db,
  projectId: string,
  s: { longTermMemoryEnabled: boolean; maxSessionLength: number; maxSessionTokens: number; enhancedMemoryRetrieval: boolean },
  at: string,
): void {
  db.query(
    `INSERT INTO project_settings (project_id, long_term_memory_enabled, max_session_length, max_session_tokens, enhanced_memory_retrieval, updated_at)
     VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT(project_id) DO UPDATE SET long_term_memory_enabled = excluded.long_term_memory_enabled,
       max_session_length = excluded.max_session_length, max_session_tokens = excluded.max_session_tokens,
       enhanced_memory_retrieval = excluded.enhanced_memory_retrieval, updated_at = excluded.updated_at`,
  ).run(projectId, s.longTermMemoryEnabled ? 1 : 0, s.maxSessionLength, s.maxSessionTokens, s.enhancedMemoryRetrieval ? 1 : 0, at);
}
