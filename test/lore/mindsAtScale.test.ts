import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { bigProject } from "../../bench/support/bigProject.ts";
import { documentsTagged } from "../../src/lore/documents/documentListStore.ts";
import { createDocument, deleteDocument, updateDocument } from "../../src/lore/documents/writeDocuments.ts";
import { updateTag } from "../../src/lore/tags/writeTags.ts";
import { updateMind } from "../../src/lore/minds/writeMinds.ts";

// GET /v1/lore/minds over many minds: streamed, and every mind's filter computed from one read of the
// project's tagged documents; checked against the per-mind query it replaced, and scoped to the key's project.
let t: TestApp;
let a: ReturnType<typeof bigProject>;
let b: ReturnType<typeof bigProject>;

beforeAll(async () => {
  t = await createTestApp();
  a = bigProject(t.app.ctx as never, { minds: 60, documents: 500, name: "A" });
  b = bigProject(t.app.ctx as never, { minds: 20, documents: 100, name: "B" });
});
afterAll(() => t.close());

const get = (key: string) => t.app.handle(new Request("http://localhost/v1/lore/minds", { headers: { authorization: `Bearer ${key}` } }));

describe("GET /v1/lore/minds with many minds", () => {
  test("every mind's filter and knowledge sentence match a query of its own tags", async () => {
    const res = await get(a.editor);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json;charset=utf-8");
    const body = JSON.parse(await res.text());
    expect(Object.keys(body)).toEqual(["minds"]);
    expect(body.minds).toHaveLength(60);
    for (const m of body.minds) {
      const docs = documentsTagged(t.app.ctx.db, a.projectId, m.knowledgeTags);
      expect(m.computedFilter).toEqual({ tags: m.knowledgeTags, documentCount: docs.length, chunkCount: docs.reduce((n, d) => n + d.chunk_count, 0) });
      const shown = docs.slice(0, 3).map((d) => d.name).join("; ");
      expect(m.knowledgeDescription).toBe(`Knows about ${m.knowledgeTags.join(", ")} (${docs.length} documents: ${shown} and ${docs.length - 3} more).`);
    }
  });

  test("another project's key sees only its own minds; a wrong key is refused before anything is read", async () => {
    const other = JSON.parse(await (await get(b.editor)).text());
    expect(other.minds.map((m: { id: string }) => m.id).sort()).toEqual([...b.minds].sort());
    const wrong = await get("lh_editor_not-a-key");
    expect(wrong.status).toBe(401);
  });

  test("a project without minds answers an empty list", async () => {
    const empty = bigProject(t.app.ctx as never, { minds: 0, documents: 3, name: "Empty" });
    const res = await get(empty.editor);
    expect(await res.text()).toBe('{"minds":[]}');
  });
});

describe("GET /v1/lore/minds after lore changes (the project's tag index is kept between requests)", () => {
  const filtersMatch = async (key: string, projectId: string) => {
    const body = JSON.parse(await (await get(key)).text());
    for (const m of body.minds) {
      const docs = documentsTagged(t.app.ctx.db, projectId, m.knowledgeTags);
      expect(m.computedFilter).toEqual({ tags: m.knowledgeTags, documentCount: docs.length, chunkCount: docs.reduce((n, d) => n + d.chunk_count, 0) });
      expect(m.knowledgeDescription).toContain(`(${docs.length} documents: ${docs.slice(0, 3).map((d) => d.name).join("; ")}`);
    }
    return body.minds as { id: string; knowledgeTags: string[]; computedFilter: { documentCount: number } }[];
  };

  test("a new document, an indexed one, a renamed one, a deleted one, a renamed tag and a mind's new tag: each shows in the next list", async () => {
    const first = await filtersMatch(a.editor, a.projectId);
    const tag = a.tags[3];
    const knowing = first.find((m) => m.knowledgeTags.includes(tag))!;
    const doc = createDocument(t.app.ctx, a.projectId, { name: "AAA first by name", content: "A new page.", tags: [tag] }).id;
    const added = await filtersMatch(a.editor, a.projectId);
    expect(added.find((m) => m.id === knowing.id)!.computedFilter.documentCount).toBe(knowing.computedFilter.documentCount + 1);
    await t.app.scheduler.trigger("indexer");
    await filtersMatch(a.editor, a.projectId);
    updateDocument(t.app.ctx, a.projectId, doc, { name: "ZZZ last by name" });
    await filtersMatch(a.editor, a.projectId);
    deleteDocument(t.app.ctx, a.projectId, doc);
    const removed = await filtersMatch(a.editor, a.projectId);
    expect(removed.find((m) => m.id === knowing.id)!.computedFilter.documentCount).toBe(knowing.computedFilter.documentCount);
    const tagId = t.app.ctx.db.query<{ id: string }, [string, string]>("SELECT id FROM tags WHERE project_id = ? AND name = ?").get(a.projectId, tag)!.id;
    updateTag(t.app.ctx, a.projectId, tagId, { name: `${tag}-renamed` });
    const renamed = await filtersMatch(a.editor, a.projectId);
    expect(renamed.find((m) => m.id === knowing.id)!.knowledgeTags).toContain(`${tag}-renamed`);
    const other = renamed.find((m) => !m.knowledgeTags.includes(`${tag}-renamed`))!;
    updateMind(t.app.ctx, a.projectId, other.id, { knowledgeTags: [...other.knowledgeTags, `${tag}-renamed`] });
    const widened = await filtersMatch(a.editor, a.projectId);
    expect(widened.find((m) => m.id === other.id)!.computedFilter.documentCount).toBeGreaterThan(other.computedFilter.documentCount);
    // B's list is its own throughout (its index is kept beside A's)
    await filtersMatch(b.editor, b.projectId);
  });
});

describe("GET /v1/lore/documents pages at scale", () => {
  test("pages walk the project's documents newest first, ties in insertion order, each page without sorting the project", async () => {
    const page = async (offset: number) => {
      const res = await t.app.handle(new Request(`http://localhost/v1/lore/documents?limit=100&offset=${offset}`, { headers: { authorization: `Bearer ${a.editor}` } }));
      return JSON.parse(await res.text());
    };
    const seen: string[] = [];
    for (let offset = 0; offset < 500; offset += 100) {
      const p = await page(offset);
      expect(p.pagination).toEqual({ total: 500, limit: 100, offset, hasMore: offset + 100 < 500 });
      seen.push(...p.documents.map((d: { name: string }) => d.name));
    }
    // Generated in one instant by the test clock: newest first is the reverse of the order they were written.
    const written = seen.map((n) => Number(n.split(" ").pop()));
    expect(written).toEqual(Array.from({ length: 500 }, (_, i) => 499 - i));
    const plan = t.app.ctx.db
      .query<{ detail: string }, [string]>("EXPLAIN QUERY PLAN SELECT d.id FROM documents d WHERE d.project_id = ? ORDER BY d.created_at DESC, d.rowid DESC LIMIT 100 OFFSET 400")
      .all(a.projectId)
      .map((r) => r.detail);
    expect(plan.join(" | ")).not.toContain("TEMP B-TREE");
  });
});

describe("GET /v1/lore/documents?tag= totals", () => {
  test("a tag's total (alone, with a status, with a search) is the number of its documents the pages hold, and only this project's", async () => {
    const list = async (key: string, q: string) => {
      const res = await t.app.handle(new Request(`http://localhost/v1/lore/documents?${q}`, { headers: { authorization: `Bearer ${key}` } }));
      expect(res.status).toBe(200);
      return JSON.parse(await res.text());
    };
    // some of A's documents pending again, so a status filter narrows the tag's documents
    const ids = t.app.ctx.db.query<{ id: string }, [string]>("SELECT id FROM documents WHERE project_id = ? ORDER BY rowid LIMIT 60").all(a.projectId);
    for (const { id } of ids) updateDocument(t.app.ctx, a.projectId, id, { content: "Rewritten: the ferryman waits." });
    let checked = 0;
    for (const tag of a.tags.slice(0, 6)) {
      for (const q of [`tag=${tag}`, `tag=${tag}&status=PENDING`, `tag=${tag}&status=COMPLETED`, `tag=${tag}&search=ferryman`]) {
        const all: { id: string; tags: { name: string }[] }[] = [];
        let p = await list(a.editor, `${q}&limit=100&offset=0`);
        const total = p.pagination.total;
        for (let offset = 0; ; ) {
          all.push(...p.documents);
          offset += 100;
          if (offset >= total) break;
          p = await list(a.editor, `${q}&limit=100&offset=${offset}`);
        }
        expect(all.length).toBe(total);
        expect(new Set(all.map((d) => d.id)).size).toBe(total);
        for (const d of all) expect(d.tags.map((x) => x.name)).toContain(tag);
        checked += total;
      }
    }
    expect(checked).toBeGreaterThan(200);
    // B has tags of the same names: A's key never counts B's documents, B's never A's
    const tag = b.tags[0];
    const inA = t.app.ctx.db.query<{ n: number }, [string, string]>("SELECT COUNT(*) AS n FROM document_tags dt JOIN tags t ON t.id = dt.tag_id WHERE t.project_id = ? AND t.name = ?");
    expect((await list(b.editor, `tag=${tag}&limit=1`)).pagination.total).toBe(inA.get(b.projectId, tag)!.n);
    expect((await list(a.editor, `tag=${tag}&limit=1`)).pagination.total).toBe(inA.get(a.projectId, tag)!.n);
    expect((await list(a.editor, "tag=no-such-tag&limit=1")).pagination.total).toBe(0);
  });
});
