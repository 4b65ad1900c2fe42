import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { openDatabase } from "../../src/db/openDatabase.ts";
import { appliedMigrations, migrate } from "../../src/db/migrate.ts";
import { MIGRATIONS } from "../../src/db/migrations/index.ts";
import { tempDir } from "../support/testApp.ts";

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("migrations apply on an empty data dir and are idempotent on restart", () => {
  const path = join(dir, "nested", "lorehold.db");
  const db = openDatabase(path);
  expect(appliedMigrations(db)).toEqual(MIGRATIONS.map((m) => m.version));
  const tables = db.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((r) => r.name);
  for (const t of ["teams", "projects", "api_keys", "entity_minds", "tags", "locations", "relationships", "relationship_types",
    "documents", "chunks", "project_settings", "rate_limits", "credit_ledger", "sessions", "memories", "scan_jobs"]) {
    expect(tables).toContain(t);
  }
  db.query("INSERT INTO meta (key, value) VALUES ('probe', 'kept')").run();
  db.close();
  const again = openDatabase(path);
  expect(migrate(again)).toEqual([]);
  expect(again.query<{ value: string }, []>("SELECT value FROM meta WHERE key = 'probe'").get()?.value).toBe("kept");
  expect(again.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM schema_migrations").get()?.n).toBe(MIGRATIONS.length);
  again.close();
});

test("pragmas: WAL, foreign keys, busy timeout", () => {
  const db = openDatabase(join(dir, "p.db"));
  expect(db.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode).toBe("wal");
  expect(db.query<{ foreign_keys: number }, []>("PRAGMA foreign_keys").get()?.foreign_keys).toBe(1);
  expect(db.query<{ timeout: number }, []>("PRAGMA busy_timeout").get()?.timeout).toBe(5000);
  db.close();
});

test("a failing migration leaves the database unchanged", () => {
  const db = openDatabase(join(dir, "f.db"));
  MIGRATIONS.push({ version: 9999, name: "broken", sql: "CREATE TABLE half_done (x INTEGER); THIS IS NOT SQL;" });
  try {
    expect(() => migrate(db)).toThrow();
  } finally {
    MIGRATIONS.pop();
  }
  expect(db.query("SELECT name FROM sqlite_master WHERE name = 'half_done'").get()).toBeNull();
  expect(appliedMigrations(db)).not.toContain(9999);
  db.close();
});
