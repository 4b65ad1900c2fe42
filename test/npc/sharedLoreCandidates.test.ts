import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { bigProject } from "../../bench/support/bigProject.ts";
import { createDocument, updateDocument } from "../../src/lore/documents/writeDocuments.ts";
import { knowledgeTagNames } from "../../src/lore/minds/mindStore.ts";
import { recordHits, sharedCandidates, sharedWalkSql, type SharedChunkRow } from "../../src/npc/sharedLore/sharedLoreStore.ts";
import { placeholders } from "../../src/lore/sqlList.ts";
import { cachedWalk } from "../../src/npc/sharedLore/sharedWalks.ts";

// A mind's shared-lore candidates are read in two steps (its own retrieval counts, then a walk of the project's
// documents in name order that stops early) instead of one query sorting every visible chunk. They must be exactly
// what that query gave: checked here against it, over minds with and without counts, gated, pending and
// other projects' documents, at several limits.
setDefaultTimeout(120_000);

let t: TestApp;
let a: ReturnType<typeof bigProject>;
let b: ReturnType<typeof bigProject>;

/** The single query the two reads replace (as it was), the reference. */
function reference(db: TestApp["app"]["db"], q: { projectId: string; mindId: string; tags: string[]; limit: number }): SharedChunkRow[] {
  return db
    .query<SharedChunkRow, (string | number)[]>(
      `SELECT c.id, c.document_id, d.name AS document_name, c.chunk_index, c.content, c.tags, COALESCE(h.hits, 0) AS hits, d.secret
       FROM chunks c JOIN documents d ON d.id = c.document_id
       LEFT JOIN mind_lore_hits h ON h.mind_id = ? AND h.chunk_id = c.id
       WHERE c.project_id = ? AND d.project_id = c.project_id AND d.status = 'COMPLETED'
         AND d.when_condition IS NULL AND d.sticky IS NULL AND d.cooldown IS NULL AND d.delay IS NULL
         AND EXISTS (SELECT 1 FROM json_each(c.tags) WHERE json_each.value IN (${placeholders(q.tags.length)}))
       ORDER BY hits DESC, d.name, c.document_id, c.chunk_index
       LIMIT ?`,
    )
    .all(q.mindId, q.projectId, ...q.tags, q.limit);
}

beforeAll(async () => {
  t = await createTestApp();
  a = bigProject(t.app.ctx as never, { minds: 12, documents: 600, name: "A" });
  b = bigProject(t.app.ctx as never, { minds: 3, documents: 200, name: "B" });
  // documents with several chunks (a long text), and names shared by several documents (ties broken by id)
  for (let i = 0; i < 20; i++) {
    createDocument(t.app.ctx, a.projectId, { name: `Chronicle ${i % 4}`, content: Array.from({ length: 12 }, (_, k) => `Part ${k} of chronicle ${i}: ${"the harbour lantern burned through the storm ".repeat(12)}`).join("\n\n"), tags: [a.tags[i % 5]] });
  }
  for (;;) {
    const r = (await t.app.scheduler.trigger("indexer"))!.lastResult as { indexed: number } | null;
    if (!r || r.indexed === 0) break;
  }
  // gated documents (never shared) and pending ones (not yet indexed) among the visible ones
  const docs = t.app.db.query<{ id: string }, [string]>("SELECT id FROM documents WHERE project_id = ? ORDER BY rowid LIMIT 40").all(a.projectId);
  for (const d of docs.slice(0, 20)) updateDocument(t.app.ctx, a.projectId, d.id, { when: "quest.bell >= 1" });
  for (const d of docs.slice(20, 40)) updateDocument(t.app.ctx, a.projectId, d.id, { content: "Rewritten, waiting for the indexer." });
  // retrieval counts for some minds: a few chunks each, some of them gated or pending now, some of another project
  const chunks = t.app.db.query<{ id: string; project_id: string }, []>("SELECT id, project_id FROM chunks ORDER BY id").all();
  let x = 7;
  const rnd = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32);
  for (const mind of a.minds.slice(0, 8)) {
    for (let i = 0; i < 60; i++) recordHits(t.app.db, a.projectId, mind, [chunks[Math.floor(rnd() * chunks.length)].id]);
  }
});
afterAll(() => t.close());

describe("a mind's shared-lore candidates", () => {
  test("are exactly the single sorted query's rows, for every mind, at limits from 1 to past the visible count", () => {
    let compared = 0;
    for (const [p, minds] of [[a.projectId, a.minds], [b.projectId, b.minds]] as const) {
      for (const mindId of minds) {
        const tags = knowledgeTagNames(t.app.db, mindId);
        for (const limit of [1, 7, 40, 256, 5000]) {
          const q = { projectId: p, mindId, tags, limit };
          const want = reference(t.app.db, q);
          expect(sharedCandidates(t.app.db, q)).toEqual(want);
          compared += want.length;
        }
      }
    }
    expect(compared).toBeGreaterThan(3_000);
  });

  test("read back from a kept walk they are the same rows; after a document is written, the walk is made again", async () => {
    const check = () => {
      let compared = 0;
      for (const [p, minds] of [[a.projectId, a.minds], [b.projectId, b.minds]] as const) {
        for (const mindId of minds) {
          const tags = knowledgeTagNames(t.app.db, mindId);
          for (const limit of [7, 256]) {
            const q = { projectId: p, mindId, tags, limit };
            const want = reference(t.app.db, q);
            expect(sharedCandidates(t.app.db, q, cachedWalk)).toEqual(want); // walked (or read back)
            expect(sharedCandidates(t.app.db, q, cachedWalk)).toEqual(want); // read back
            compared += want.length;
          }
        }
      }
      return compared;
    };
    expect(check()).toBeGreaterThan(1_000);
    // a document first in name order, visible to every tag of project A, then one gated: each moves the revision
    const first = createDocument(t.app.ctx, a.projectId, { name: "AAA first of all", content: "The lantern burned.", tags: a.tags });
    for (;;) {
      const r = (await t.app.scheduler.trigger("indexer"))!.lastResult as { indexed: number } | null;
      if (!r || r.indexed === 0) break;
    }
    const mindId = a.minds[0];
    const tags = knowledgeTagNames(t.app.db, mindId);
    expect(sharedCandidates(t.app.db, { projectId: a.projectId, mindId, tags, limit: 5000 }, cachedWalk).some((r) => r.document_id === first.id)).toBe(true);
    expect(check()).toBeGreaterThan(1_000);
    updateDocument(t.app.ctx, a.projectId, first.id, { when: "quest.bell >= 1" });
    expect(sharedCandidates(t.app.db, { projectId: a.projectId, mindId, tags, limit: 5000 }, cachedWalk).some((r) => r.document_id === first.id)).toBe(false);
    expect(check()).toBeGreaterThan(1_000);
  });

  test("some of those minds have counts that reorder their candidates (the check compared something)", () => {
    const mindId = a.minds[0];
    const rows = sharedCandidates(t.app.db, { projectId: a.projectId, mindId, tags: knowledgeTagNames(t.app.db, mindId), limit: 256 });
    expect(rows[0].hits).toBeGreaterThan(0);
    expect(rows.at(-1)!.hits).toBe(0);
  });

  test("the walk in document order reads the project's name index and never sorts the project's chunks", () => {
    const plan = t.app.db
      .query<{ detail: string }, (string | number)[]>(`EXPLAIN QUERY PLAN ${sharedWalkSql(2)}`)
      .all("p", "a", "b", 10)
      .map((r) => r.detail);
    expect(plan.some((d) => d.includes("USING INDEX documents_project_name"))).toBe(true);
    // at most the chunks of one document are sorted (their index), never the whole result
    expect(plan.some((d) => d === "USE TEMP B-TREE FOR ORDER BY")).toBe(false);
  });
});
