import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { migrate } from "./migrate.ts";

export type Db = Database;

/**
 * Statements `db.query` keeps prepared, per connection. bun:sqlite keeps 20 by default, the least recently used
 * going first: a preview alone runs ~26 distinct statements, always in the same order, so at 20 every one of them
 * was evicted before its next use and prepared again on every request (~0.5 ms of a preview's JS thread on a world
 * of 100,000 chunks; BENCHMARKS.md "Big worlds: a preview over HTTP"). The server's statements number a few
 * hundred, plus the variants of the IN lists that vary in length; a prepared statement is a few KB.
 */
export const QUERY_CACHE_SIZE = 1_000;

/**
 * Opens the ledger: WAL (readers never block the writer), foreign keys on,
 * a busy timeout so the CLI and the server can write the same file, then
 * applies pending migrations.
 */
export function openDatabase(path: string): Db {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  // bun:sqlite reads this class-wide limit at each query (never lowered: another owner may have raised it further)
  if (Database.MAX_QUERY_CACHE_SIZE < QUERY_CACHE_SIZE) Database.MAX_QUERY_CACHE_SIZE = QUERY_CACHE_SIZE;
  const db = new Database(path, { create: true, strict: true });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA foreign_keys = ON");
  db.exec("PRAGMA busy_timeout = 5000");
  db.exec("PRAGMA synchronous = NORMAL");
  // 32 MB page cache (default 2 MB) for lore reads and retrieval's SQLite half; the scan worker
  // runs with less (runScanWorker.ts).
  db.exec("PRAGMA cache_size = -32000");
  migrate(db);
  return db;
}

/**
 * Runs `fn` with the connection's page cache set to `kib` KiB, then puts the previous size back.
 * The connection is shared, so requests served meanwhile see the same cache.
 */
export async function withCacheSize<T>(db: Db, kib: number, fn: () => Promise<T>): Promise<T> {
  const previous = db.query<{ cache_size: number }, []>("PRAGMA cache_size").get()?.cache_size ?? -2000;
  db.exec(`PRAGMA cache_size = ${-Math.abs(Math.floor(kib))}`);
  try {
    return await fn();
  } finally {
    db.exec(`PRAGMA cache_size = ${Math.trunc(previous)}`);
  }
}

/** Runs fn in one IMMEDIATE write transaction (takes the write lock up front: no upgrade deadlocks). */
export function writeTx<T>(db: Db, fn: () => T): T {
  return db.transaction(fn).immediate();
}

/** Throws when the database is closed or broken (readiness). */
export function pingDatabase(db: Db): void {
  db.query("SELECT 1").get();
}

/**
 * Foreign keys checked at commit instead of per statement, for the rest of the
 * current transaction: rows that name each other can be written in one pass.
 */
export function deferForeignKeys(db: Db): void {
  db.exec("PRAGMA defer_foreign_keys = ON");
}

/** The first column of every row of a query (ids, names): one array, no row objects. */
export function firstColumn<T extends string | number>(db: Db, sql: string, ...args: (string | number)[]): T[] {
  return db
    .query<unknown, (string | number)[]>(sql)
    .values(...args)
    .map((r) => r[0] as T);
}

/** Pairs (owner id, linked id) from a two-column query, as owner → linked ids sorted. */
export function linkedIds(db: Db, sql: string, ...args: (string | number)[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [owner, id] of db.query<unknown, (string | number)[]>(sql).values(...args) as [string, string][]) {
    const list = out.get(owner);
    if (list) list.push(id);
    else out.set(owner, [id]);
  }
  for (const list of out.values()) list.sort();
  return out;
}
