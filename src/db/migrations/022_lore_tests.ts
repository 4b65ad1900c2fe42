import type { Migration } from "./migration.ts";

/**
 * Lore test runs and their results (src/loretests): a run is one suite on one model against a scratch copy
 * of a project; each case keeps every reply and its trace, so two runs can be compared case by case later.
 * The suite's text is kept with a queued run (the admin API's run job reads it from here).
 */
export const loreTests: Migration = {
  version: 22,
  name: "lore_tests",
  sql: `
CREATE TABLE lore_test_runs (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  status TEXT NOT NULL CHECK (status IN ('QUEUED', 'RUNNING', 'PASSED', 'FAILED', 'ERROR')),
  label TEXT,
  created_at TEXT NOT NULL,
  started_at TEXT,
  finished_at TEXT,
  model TEXT,
  lore_revision TEXT,
  prompt_version TEXT,
  total_cases INTEGER NOT NULL DEFAULT 0,
  done_cases INTEGER NOT NULL DEFAULT 0,
  passed_cases INTEGER NOT NULL DEFAULT 0,
  suite TEXT NOT NULL,
  options TEXT NOT NULL DEFAULT '{}',
  error TEXT,
  wall_ms REAL,
  generate_ms REAL
);
CREATE INDEX lore_test_runs_project ON lore_test_runs(project_id, created_at);
CREATE TABLE lore_test_results (
  run_id TEXT NOT NULL REFERENCES lore_test_runs(id) ON DELETE CASCADE,
  case_index INTEGER NOT NULL,
  source TEXT NOT NULL,
  name TEXT NOT NULL,
  mind_id TEXT NOT NULL,
  passed INTEGER NOT NULL,
  pass_rate REAL NOT NULL,
  required_rate REAL NOT NULL,
  runs TEXT NOT NULL,
  PRIMARY KEY (run_id, case_index)
);
`,
};
