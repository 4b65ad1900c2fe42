import { expect, test } from "bun:test";
import { openDatabase } from "../../src/db/openDatabase.ts";
import { secretDocumentsSql } from "../../src/lore/documents/documentStore.ts";

// Per-turn lookups by id must stay lookups by id. With the project id a bound parameter and no statistics,
// SQLite preferred the project's index for `project_id = ? AND id IN (…)` and walked every document of the
// project: ~30 ms a turn at 100,000 documents for the secrets of four hits. Plans are read with bound
// parameters, as the server runs them.
const planOf = (sql: string, args: string[]) => {
  const db = openDatabase(":memory:");
  try {
    return db.query<{ detail: string }, string[]>(`EXPLAIN QUERY PLAN ${sql}`).all(...args).map((r) => r.detail);
  } finally {
    db.close();
  }
};

test("a turn's secret lookup reads its documents by primary key, not the project's documents", () => {
  const plan = planOf(secretDocumentsSql(4), ["d1", "d2", "d3", "d4", "p"]);
  expect(plan).toHaveLength(1);
  expect(plan[0]).toContain("USING INDEX sqlite_autoindex_documents_1 (id=?)");
});

test("a plain read of a project's documents keeps to the creation-order index (the name index is the shared lore's alone)", () => {
  // the query of the project's documents the minds list and lore packs read; in name order its rows were fetched
  // out of table order (~0.5 s instead of ~0.1 s at 100,000 documents)
  const plan = planOf("SELECT id, name, chunk_count FROM documents WHERE project_id = ?", ["p"]);
  expect(plan.join(" | ")).not.toContain("documents_project_name");
  const page = planOf("SELECT COUNT(*) AS n FROM documents d WHERE d.project_id = ? AND d.status = ?", ["p", "COMPLETED"]);
  expect(page.join(" | ")).not.toContain("documents_project_name");
});
