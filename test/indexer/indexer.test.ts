import { setDefaultTimeout, afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { HashingEmbedder } from "../../src/vectors/HashingEmbedder.ts";
import type { Embedder } from "../../src/vectors/Embedder.ts";
import { createProject } from "../../src/projects/projectService.ts";
import { createDocument, deleteDocument, updateDocument } from "../../src/lore/documents/writeDocuments.ts";
import { getDocument } from "../../src/lore/documents/readDocuments.ts";

// real llama.cpp on 2 shared cores
setDefaultTimeout(120_000);

/** The real hashing embedder, except that it refuses any text holding POISON (to make indexing fail). */
class PoisonableEmbedder implements Embedder {
  private readonly inner = new HashingEmbedder();
  readonly id = this.inner.id;
  readonly dims = this.inner.dims;
  async embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.some((t) => t.includes("POISON"))) throw new Error("embedding model rejected the input");
    return this.inner.embed(texts);
  }
}

let t: TestApp;
let pid: string;
const run = async () => (await t.app.scheduler.trigger("indexer"))!.lastResult as { indexed: number; failed: number; removed: number };
const status = (id: string) => getDocument(t.app.ctx, pid, id).status;

beforeAll(async () => {
  t = await createTestApp({}, { embedder: new PoisonableEmbedder() });
  pid = createProject(t.app.ctx, { name: "Index" }).id;
});
afterAll(() => t.close());

describe("the indexer job", () => {
  test("PENDING → COMPLETED, chunks in SQLite and LanceDB, a long document split into several chunks", async () => {
    const long = Array.from({ length: 40 }, (_, i) => `## Chapter ${i}\n\n${"The river carries silt and stories to the sea. ".repeat(12)}`).join("\n\n");
    const d = createDocument(t.app.ctx, pid, { name: "Long", content: long, tags: ["history"] });
    expect(status(d.id)).toBe("PENDING");
    expect(await run()).toMatchObject({ indexed: 1, failed: 0 });
    const doc = getDocument(t.app.ctx, pid, d.id);
    expect(doc.status).toBe("COMPLETED");
    expect(doc.chunkCount).toBeGreaterThan(3);
    expect(doc.chunks.map((c) => c.chunkIndex)).toEqual(doc.chunks.map((_, i) => i));
    expect(await t.app.ctx.vectors.countChunks(pid)).toBe(doc.chunkCount);
    expect(doc.processedAt).not.toBeNull();
  });
  test("a document whose embedding fails ends FAILED with the reason; the others still index", async () => {
    const bad = createDocument(t.app.ctx, pid, { name: "Bad", content: "This one carries POISON.", tags: ["history"] });
    const good = createDocument(t.app.ctx, pid, { name: "Good", content: "A perfectly ordinary chronicle.", tags: ["history"] });
    expect(await run()).toMatchObject({ indexed: 1, failed: 1 });
    expect(status(bad.id)).toBe("FAILED");
    expect(status(good.id)).toBe("COMPLETED");
    const reason = t.app.db.query<{ error_message: string }, [string]>("SELECT error_message FROM documents WHERE id = ?").get(bad.id)!.error_message;
    expect(reason).toBe("Indexing failed: embedding model rejected the input");
    // fixing the content re-queues it, and it indexes
    updateDocument(t.app.ctx, pid, bad.id, { content: "This one is clean now." });
    expect(status(bad.id)).toBe("PENDING");
    expect(await run()).toMatchObject({ indexed: 1, failed: 0 });
    expect(status(bad.id)).toBe("COMPLETED");
  });
  test("a document left PROCESSING by a crash is re-queued at boot", async () => {
    const d = createDocument(t.app.ctx, pid, { name: "Crash", content: "Half done.", tags: ["history"] });
    t.app.db.query("UPDATE documents SET status = 'PROCESSING' WHERE id = ?").run(d.id);
    const { requeueInterrupted } = await import("../../src/lore/documents/documentStore.ts");
    expect(requeueInterrupted(t.app.ctx)).toBe(1);
    await run();
    expect(status(d.id)).toBe("COMPLETED");
  });
  test("deleting removes the vectors", async () => {
    const d = createDocument(t.app.ctx, pid, { name: "Gone", content: "Soon forgotten lore about lanterns.", tags: ["items"] });
    await run();
    expect((await t.app.ctx.vectors.searchVectors({ projectId: pid, query: "lanterns", tags: ["items"], n: 3 })).length).toBe(1);
    deleteDocument(t.app.ctx, pid, d.id);
    expect(await run()).toMatchObject({ removed: 1 });
    expect(await t.app.ctx.vectors.searchVectors({ projectId: pid, query: "lanterns", tags: ["items"], n: 3 })).toEqual([]);
  });
  test("one tick works through a backlog of many documents, not a fixed 50 (the schedule's 2 s would idle the rest)", async () => {
    const ids = Array.from({ length: 130 }, (_, i) => createDocument(t.app.ctx, pid, { name: `Rumour ${i}`, content: `Rumour ${i}: the ferry runs late.`, tags: ["history"] }).id);
    // 130 one-chunk documents are a few batches: far inside one tick's time on any machine
    expect(await run()).toMatchObject({ indexed: 130, failed: 0 });
    expect(ids.filter((id) => status(id) !== "COMPLETED")).toEqual([]);
  });
  test("a tick ends when its time is up and the next one goes on where it stopped", async () => {
    const { runIndexer } = await import("../../src/lore/indexer/indexerJob.ts");
    const ids = Array.from({ length: 5 }, (_, i) => createDocument(t.app.ctx, pid, { name: `Ledger ${i}`, content: `Ledger ${i}: salt and iron.`, tags: ["history"] }).id);
    // no time at all: nothing is claimed, nothing is left PROCESSING
    expect(await runIndexer(t.app.ctx as never, undefined, Number.POSITIVE_INFINITY, 32, 0)).toMatchObject({ indexed: 0 });
    expect(ids.map(status)).toEqual(ids.map(() => "PENDING"));
    expect(await run()).toMatchObject({ indexed: 5 });
  });
});
