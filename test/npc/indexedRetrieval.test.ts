import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import { createDocument } from "../../src/lore/documents/writeDocuments.ts";
import { createMind } from "../../src/lore/minds/writeMinds.ts";
import { createTag } from "../../src/lore/tags/writeTags.ts";
import { createProject } from "../../src/projects/projectService.ts";
import type { VectorStore } from "../../src/vectors/VectorStore.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { DenseEmbedder } from "../vectors/helpers.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";

// A project past the (lowered) index threshold, searched through the approximate index: knowledge scoping holds
// through interact-preview exactly as with the exact scan. Real llama.cpp (the preview counts tokens), real LanceDB.
setDefaultTimeout(120_000);

const WORDS = "river mill ferry toll abbey crypt bell lantern harbour ship storm keeper merchant caravan road bridge guard gate wall tower".split(" ");
let t: TestApp;
let admin: string;
let a: string;
let b: string;
let mind: string;
const secretDocs = new Set<string>();
const openDocs = new Set<string>();
const otherDocs = new Set<string>();

beforeAll(async () => {
  t = await createTestApp(
    { model: ensureTinyModel(undefined, { nCtx: 2048 }), contextSize: 2048, threads: 1, vectorIndexMinChunks: 100, sharedLoreTokens: 0 },
    { embedder: new DenseEmbedder("dense-hashing-test-v1", 0.02) },
  );
  admin = ensureAdminToken(t.app.db).adminToken;
  a = createProject(t.app.ctx, { name: "A" }).id;
  b = createProject(t.app.ctx, { name: "B" }).id;
  for (const p of [a, b]) for (const name of ["open", "secret"]) createTag(t.app.ctx, p, { name });
  // 160 secret chunks, all close to the question; 3 open ones that share no word with it (BM25 cannot bring
  // them: the vector half must find them, through the index, past every closer secret row)
  for (let i = 0; i < 160; i++) {
    const filler = Array.from({ length: 8 }, (_, j) => WORDS[(i * 3 + j * 7) % WORDS.length]).join(" ");
    secretDocs.add(createDocument(t.app.ctx, a, { name: `Secret ${i}`, content: `The silver key is hidden beneath the old mill wheel. ${filler}.`, tags: ["secret"] }).id);
  }
  for (const text of ["Porridge simmers slowly.", "Goats graze upland pastures.", "Weavers dye wool crimson."]) {
    openDocs.add(createDocument(t.app.ctx, a, { name: text, content: text, tags: ["open"] }).id);
  }
  // the other project: the same secret, tagged open there
  otherDocs.add(createDocument(t.app.ctx, b, { name: "Elsewhere", content: "The silver key is hidden beneath the old mill wheel.", tags: ["open"] }).id);
  mind = createMind(t.app.ctx, a, { key: "miller", entityName: "Miller", personality: "Plain.", knowledgeTags: ["open"] }).id;
  for (let i = 0; i < 10; i++) {
    const r = (await t.app.scheduler.trigger("indexer"))!.lastResult as { indexed: number } | null;
    if (!r || r.indexed === 0) break;
  }
});
afterAll(() => t.close());

test("interact-preview on an indexed project: only the open chunks, all of them, none of the secret or the other project's", async () => {
  const store = t.app.ctx.vectors as VectorStore;
  const cache = await store.projectCache(store.activeGeneration(), a);
  await cache.indexIdle();
  expect(cache.size).toBe(163);
  expect(cache.mode).toBe("indexed");
  for (const text of ["Where is the silver key hidden?", "silver key mill wheel", "Tell me about the old mill."]) {
    const r = await t.call("POST", `/admin/v1/projects/${a}/interact-preview`, { key: admin, body: { text, entityMindId: mind, playerId: `p-${text.length}` } });
    expect(r.status).toBe(200);
    const lore = r.body.lore.filter((l: { turn: string }) => l.turn === "this");
    for (const l of lore) {
      expect(secretDocs.has(l.documentId)).toBe(false);
      expect(otherDocs.has(l.documentId)).toBe(false);
      expect(l.tags).toEqual(["open"]);
    }
    // never fewer hits than the visible set has: 3 open chunks, k = 4
    expect(new Set(lore.map((l: { documentId: string }) => l.documentId))).toEqual(openDocs);
    expect(JSON.stringify(r.body.prompt)).not.toContain("silver key is hidden");
  }
});
