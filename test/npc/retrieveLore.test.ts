import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { createProject } from "../../src/projects/projectService.ts";
import { createTag } from "../../src/lore/tags/writeTags.ts";
import { createDocument, updateDocument } from "../../src/lore/documents/writeDocuments.ts";
import { bm25Query, chunkTextSearch } from "../../src/retrieval/hybridSearch.ts";
import { firstVisible, retrieveLore, stillVisible } from "../../src/retrieval/hybridSearch.ts";
import { OPEN_GATE } from "../../src/retrieval/loreGate.ts";

let t: TestApp;
let a: string;
let b: string;
const TAGS = ["sea", "crypt", "o'brien's", 'quote"d', "a) OR (b"];

beforeAll(async () => {
  t = await createTestApp();
  a = createProject(t.app.ctx, { name: "A" }).id;
  b = createProject(t.app.ctx, { name: "B" }).id;
  for (const p of [a, b]) for (const name of TAGS) createTag(t.app.ctx, p, { name });
  const texts = [
    "The lighthouse keeper counts ships in the storm.",
    "Bones rest in the crypt beneath the abbey.",
    "Smugglers hide brandy in the sea caves.",
    "The crypt door opens only at the new moon.",
    "Old O'Brien sings sea shanties at the harbour.",
  ];
  for (const p of [a, b]) {
    texts.forEach((text, i) => createDocument(t.app.ctx, p, { name: `${p === a ? "A" : "B"}${i}`, content: text, tags: [TAGS[i % TAGS.length]] }));
  }
  await t.app.scheduler.trigger("indexer");
});
afterAll(() => t.close());

describe("BM25 query building", () => {
  const cases: Array<[string, string | null]> = [
    ["Where is the crypt?", '"crypt"'],
    ["the a of", null],
    ['"crypt" OR NEAR(x) -y*', '"crypt" OR "near"'],
    ["Sea sea SEA", '"sea"'],
    ["Ünïcode café", '"ünïcode" OR "café"'],
  ];
  for (const [text, q] of cases) test(JSON.stringify(text), () => expect(bm25Query(text)).toBe(q));
});

describe("retrieval scoping (text half, then fused)", () => {
  test("random tag subsets and hostile queries never leave the project or the tags", async () => {
    const queries = ["crypt", "sea storm ships", "O'Brien", '") OR 1=1 --', "NEAR(crypt, sea)", "*", "brandy caves abbey moon"];
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (let i = 0; i < 60; i++) {
      const tags = TAGS.filter(() => rnd() < 0.5);
      const project = rnd() < 0.5 ? a : b;
      const query = queries[Math.floor(rnd() * queries.length)];
      const ownerOf = (documentId: string) =>
        t.app.db.query<{ project_id: string }, [string]>("SELECT project_id FROM documents WHERE id = ?").get(documentId)!.project_id;
      for (const hit of chunkTextSearch(t.app.ctx, { projectId: project, query, tags, n: 10 })) {
        // The chunk's own project (read from its row) and its document's owner, not a copy of the query's.
        expect(hit.projectId).toBe(project);
        expect(ownerOf(hit.documentId)).toBe(project);
        expect(hit.tags.some((x) => tags.includes(x))).toBe(true);
      }
      for (const hit of await retrieveLore(t.app.ctx, { projectId: project, query, tags, k: 4 })) {
        expect(hit.tags.some((x) => tags.includes(x))).toBe(true);
        const owner = t.app.db.query<{ project_id: string }, [string]>("SELECT project_id FROM documents WHERE id = ?").get(hit.documentId)!;
        expect(owner.project_id).toBe(project);
      }
    }
  });
  test("a keyword hit ranks first; a document being re-indexed is not served", async () => {
    const hits = await retrieveLore(t.app.ctx, { projectId: a, query: "Where does the lighthouse keeper live?", tags: TAGS, k: 3 });
    expect(hits[0].text).toBe("The lighthouse keeper counts ships in the storm.");
    const doc = hits[0].documentId;
    updateDocument(t.app.ctx, a, doc, { content: "The lighthouse is empty now." }); // PENDING until re-indexed
    const during = await retrieveLore(t.app.ctx, { projectId: a, query: "lighthouse keeper", tags: TAGS, k: 3 });
    expect(during.map((h) => h.documentId)).not.toContain(doc);
    await t.app.scheduler.trigger("indexer");
    const after = await retrieveLore(t.app.ctx, { projectId: a, query: "lighthouse", tags: TAGS, k: 3 });
    expect(after[0].text).toBe("The lighthouse is empty now.");
  });
});

describe("the visibility check in rank order", () => {
  test("the first k visible of a ranking, checked a few at a time, are those of one check of them all", () => {
    const rows = t.app.db.query<{ id: string; document_id: string }, []>("SELECT id, document_id FROM chunks").all();
    // rankings longer than a batch, mixing both projects' chunks with ids that name no chunk, many of them hidden
    const ids = [...rows.map((r) => r.id), ...Array.from({ length: 12 }, (_, i) => `chunk_gone_${i}`)];
    let seed = 11;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    let checked = 0;
    for (let i = 0; i < 200; i++) {
      const project = rnd() < 0.5 ? a : b;
      const tags = TAGS.filter(() => rnd() < 0.4);
      const held = new Set(rows.filter(() => rnd() < 0.2).map((r) => r.document_id));
      const gate = { ...OPEN_GATE, blocks: (documentId: string) => held.has(documentId) };
      const ranked = ids.filter(() => rnd() < 0.8).sort(() => rnd() - 0.5).map((id) => ({ item: { id } }));
      const k = 1 + Math.floor(rnd() * 6);
      const ok = stillVisible(t.app.ctx, project, ranked.map((r) => r.item.id), tags, gate);
      const expected = ranked.filter((r) => ok.has(r.item.id)).slice(0, k);
      expect(firstVisible(t.app.ctx, project, ranked, tags, gate, k)).toEqual(expected);
      if (expected.length === k && ranked.indexOf(expected[k - 1]) >= 8) checked++;
    }
    // the rankings did reach past the first batch
    expect(checked).toBeGreaterThan(20);
  });
});
