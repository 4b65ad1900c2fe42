import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const SRC = resolve(import.meta.dir, "../../src");

/** SQL runs only in store modules (`*Store.ts`, `*Rows.ts` — the credit ledger's and memories' rows) and src/db/. */
const STORE_FILE = /(Store|Rows)\.ts$/;
/** db.query( / db.prepare( / db.run( / db.exec(, including `ctx.db\n  .query<…>(` split over lines. */
const SQL_CALL = /\bdb\s*\.\s*(query|prepare|run|exec)\s*[<(]/g;

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? tsFiles(p) : e.name.endsWith(".ts") ? [p] : [];
  });
}

function sqlOutsideStores(files: { path: string; text: string }[]): string[] {
  return files
    .filter((f) => !f.path.startsWith("db/") && !STORE_FILE.test(f.path))
    .flatMap((f) => [...f.text.matchAll(SQL_CALL)].map((m) => `${f.path}:${f.text.slice(0, m.index).split("\n").length}`));
}

describe("one owner per table", () => {
  test("no SQL outside the store modules and src/db/", () => {
    const files = tsFiles(SRC).map((p) => ({ path: relative(SRC, p).replaceAll("\\", "/"), text: readFileSync(p, "utf8") }));
    expect(sqlOutsideStores(files)).toEqual([]);
  });

  test("the rule catches a query in a service, on one line or split", () => {
    const found = sqlOutsideStores([
      { path: "npc/service.ts", text: 'const a = 1;\nctx.db.query("SELECT 1").get();\n' },
      { path: "npc/other.ts", text: "ctx.db\n  .prepare<{ n: number }, []>(\n  `SELECT 1`);\n" },
      { path: "npc/sessionStore.ts", text: 'db.query("SELECT 1")' },
      { path: "db/migrate.ts", text: 'db.run("PRAGMA x")' },
    ]);
    expect(found).toEqual(["npc/service.ts:2", "npc/other.ts:1"]);
  });
});
