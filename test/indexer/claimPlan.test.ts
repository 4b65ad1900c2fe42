import { expect, test } from "bun:test";
import { openDatabase } from "../../src/db/openDatabase.ts";
import { CLAIM_PENDING_SQL } from "../../src/lore/documents/documentStore.ts";

// The indexer claims one document at a time; sorting the whole PENDING backlog (content included) at each claim
// made a bulk import's indexing slow down as the backlog grew. The claim must walk an index, never sort.
test("claiming the next pending document walks an index and sorts nothing", () => {
  const db = openDatabase(":memory:");
  const plan = db.query<{ detail: string }, []>(`EXPLAIN QUERY PLAN ${CLAIM_PENDING_SQL}`).all().map((r) => r.detail);
  expect(plan.some((d) => d.includes("USING INDEX documents_status_updated"))).toBe(true);
  expect(plan.some((d) => d.includes("TEMP B-TREE"))).toBe(false);
  db.close();
});
