import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { migrate } from "./migrate.ts";

export type Db = Database;

/**
 * Opens the ledger: WAL (readers never block the writer), foreign keys on,
 * a busy timeout so the CLI and the server can write the same file, then
 * applies pending migrations.
 */
export function openDatabase(path: string): Db {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { create: true, strict: true });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA foreign_keys = ON");
  db.exec("PRAGMA busy_timeout = 5000");
  db.exec("PRAGMA synchronous = NORMAL");
  // 32 MB page cache (default 2 MB): the scan worker writes hundreds of thousands of rows per archive.
  db.exec("PRAGMA cache_size = -32000");
  migrate(db);
  return db;
}

/** Runs fn in one IMMEDIATE write transaction (takes the write lock up front: no upgrade deadlocks). */
export function writeTx<T>(db: Db, fn: () => T): T {
  return db.transaction(fn).immediate();
}
