import type { Db } from "../db/openDatabase.ts";

/** Every SQL statement on lore_test_runs and lore_test_results (migration 022). */

export type RunStatus = "QUEUED" | "RUNNING" | "PASSED" | "FAILED" | "ERROR";

export interface RunRow {
  id: string;
  projectId: string;
  status: RunStatus;
  label: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  model: string | null;
  loreRevision: string | null;
  promptVersion: string | null;
  totalCases: number;
  doneCases: number;
  passedCases: number;
  error: string | null;
  wallMs: number | null;
  generateMs: number | null;
}

export interface ResultRow {
  caseIndex: number;
  source: string;
  name: string;
  mindId: string;
  passed: boolean;
  passRate: number;
  requiredRate: number;
  /** JSON: every run of the case, every turn's reply, trace and checks */
  runs: string;
}

const RUN_COLUMNS = `id, project_id AS projectId, status, label, created_at AS createdAt, started_at AS startedAt, finished_at AS finishedAt,
  model, lore_revision AS loreRevision, prompt_version AS promptVersion, total_cases AS totalCases, done_cases AS doneCases,
  passed_cases AS passedCases, error, wall_ms AS wallMs, generate_ms AS generateMs`;

export function insertRun(db: Db, r: { id: string; projectId: string; label: string | null; createdAt: string; suite: string; options: string; totalCases: number }): void {
  db.query(`INSERT INTO lore_test_runs (id, project_id, status, label, created_at, suite, options, total_cases) VALUES (?, ?, 'QUEUED', ?, ?, ?, ?, ?)`).run(
    r.id, r.projectId, r.label, r.createdAt, r.suite, r.options, r.totalCases,
  );
}

/** QUEUED → RUNNING for the oldest queued run, atomically: two workers never take the same run. */
export function claimQueuedRun(db: Db, at: string): (RunRow & { suite: string; options: string }) | null {
  const row = db.query<{ id: string }, []>(`SELECT id FROM lore_test_runs WHERE status = 'QUEUED' ORDER BY created_at, id LIMIT 1`).get();
  if (!row) return null;
  const changed = db.query(`UPDATE lore_test_runs SET status = 'RUNNING', started_at = ? WHERE id = ? AND status = 'QUEUED'`).run(at, row.id).changes;
  if (!changed) return null;
  return db.query<RunRow & { suite: string; options: string }, [string]>(`SELECT ${RUN_COLUMNS}, suite, options FROM lore_test_runs WHERE id = ?`).get(row.id);
}

/** A run the CLI starts at once (never queued). */
export function markRunning(db: Db, id: string, at: string): void {
  db.query(`UPDATE lore_test_runs SET status = 'RUNNING', started_at = ? WHERE id = ?`).run(at, id);
}

export function setRunIdentity(db: Db, id: string, v: { model: string; loreRevision: string; promptVersion: string | null }): void {
  db.query(`UPDATE lore_test_runs SET model = ?, lore_revision = ?, prompt_version = ? WHERE id = ?`).run(v.model, v.loreRevision, v.promptVersion, id);
}

export function insertResult(db: Db, runId: string, r: ResultRow): void {
  db.transaction(() => {
    db.query(
      `INSERT INTO lore_test_results (run_id, case_index, source, name, mind_id, passed, pass_rate, required_rate, runs) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(runId, r.caseIndex, r.source, r.name, r.mindId, r.passed ? 1 : 0, r.passRate, r.requiredRate, r.runs);
    db.query(`UPDATE lore_test_runs SET done_cases = done_cases + 1, passed_cases = passed_cases + ? WHERE id = ?`).run(r.passed ? 1 : 0, runId);
  })();
}

export function finishRun(db: Db, id: string, v: { status: RunStatus; at: string; error?: string | null; wallMs?: number; generateMs?: number; promptVersion?: string | null }): void {
  db.query(
    `UPDATE lore_test_runs SET status = ?, finished_at = ?, error = ?, wall_ms = ?, generate_ms = ?, prompt_version = COALESCE(?, prompt_version) WHERE id = ?`,
  ).run(v.status, v.at, v.error ?? null, v.wallMs ?? null, v.generateMs ?? null, v.promptVersion ?? null, id);
}

/** Runs left RUNNING by a process that stopped: they can never finish. */
export function failInterruptedRuns(db: Db, at: string): number {
  return db.query(`UPDATE lore_test_runs SET status = 'ERROR', finished_at = ?, error = 'interrupted: the server stopped during the run' WHERE status = 'RUNNING'`).run(at).changes;
}

/** One run, only within its project (another project's run id is not found). */
export function getRun(db: Db, projectId: string, id: string): RunRow | null {
  return db.query<RunRow, [string, string]>(`SELECT ${RUN_COLUMNS} FROM lore_test_runs WHERE id = ? AND project_id = ?`).get(id, projectId);
}

/** A run by id alone: the CLI, which names runs from the command line of one data dir. */
export function findRunAnyProject(db: Db, id: string): RunRow | null {
  return db.query<RunRow, [string]>(`SELECT ${RUN_COLUMNS} FROM lore_test_runs WHERE id = ?`).get(id);
}

export function listRuns(db: Db, projectId: string, limit: number): RunRow[] {
  return db.query<RunRow, [string, number]>(`SELECT ${RUN_COLUMNS} FROM lore_test_runs WHERE project_id = ? ORDER BY created_at DESC, id DESC LIMIT ?`).all(projectId, limit);
}

export function runResults(db: Db, runId: string): ResultRow[] {
  return db
    .query<Omit<ResultRow, "passed"> & { passed: number }, [string]>(
      `SELECT case_index AS caseIndex, source, name, mind_id AS mindId, passed, pass_rate AS passRate, required_rate AS requiredRate, runs FROM lore_test_results WHERE run_id = ? ORDER BY case_index`,
    )
    .all(runId)
    .map((r) => ({ ...r, passed: r.passed === 1 }));
}

/** A consistent copy of the whole database file (readers and the writer carry on meanwhile): the scratch copy's start. */
export function copyDatabaseTo(db: Db, path: string): void {
  db.run("VACUUM INTO ?", [path]);
}

/** The suites of a project's latest runs, newest first: the suite files the project has been tested with. */
export function recentSuites(db: Db, projectId: string, limit: number): { id: string; createdAt: string; suite: string }[] {
  return db
    .query<{ id: string; createdAt: string; suite: string }, [string, number]>(`SELECT id, created_at AS createdAt, suite FROM lore_test_runs WHERE project_id = ? ORDER BY created_at DESC, id DESC LIMIT ?`)
    .all(projectId, limit);
}
