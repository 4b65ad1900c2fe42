import type { Database } from "bun:sqlite";
import { MIGRATIONS } from "./migrations/index.ts";

/**
 * Applies numbered migrations not yet recorded in schema_migrations, all in
 * one transaction: a failure leaves the database as it was.
 */
export function migrate(db: Database): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const applied = new Set(
    db.query<{ version: number }, []>("SELECT version FROM schema_migrations").all().map((r) => r.version),
  );
  const pending = MIGRATIONS.filter((m) => !applied.has(m.version)).sort((a, b) => a.version - b.version);
  if (pending.length === 0) return [];
  db.transaction(() => {
    for (const m of pending) {
      db.exec(m.sql);
      db.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)").run(
        m.version,
        m.name,
        new Date().toISOString(),
      );
    }
  }).immediate();
  return pending.map((m) => m.version);
}

export function appliedMigrations(db: Database): number[] {
  return db
    .query<{ version: number }, []>("SELECT version FROM schema_migrations ORDER BY version")
    .all()
    .map((r) => r.version);
}
