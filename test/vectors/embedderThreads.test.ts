import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EmbedderThread, EmbedderThreadError } from "../../src/vectors/threads/EmbedderThread.ts";
import { EmbedderThreads } from "../../src/vectors/threads/EmbedderThreads.ts";
import { TransformersEmbedder } from "../../src/vectors/TransformersEmbedder.ts";
import { createDocument } from "../../src/lore/documents/writeDocuments.ts";
import { createProject } from "../../src/projects/projectService.ts";
import { createTestApp } from "../support/testApp.ts";
import { writeTinyOnnxModel } from "../support/tinyOnnx.ts";
import { tempDir } from "./helpers.ts";

const tmp = tempDir("lorehold-threads-");
const modelsDir = join(tmp.dir, "models");
const modelDir = join(modelsDir, "embeddings", "tiny-bert");
/** A pass of a long text through this one costs tens of ms (MatMul layers): long enough to be under way at dispose. */
const heavyDir = join(modelsDir, "embeddings", "heavy-bert");
const LONG = Array.from({ length: 60 }, (_, i) => `dragon ${i} gold mountain road king queen `.repeat(80));
const FAILING = new URL("../support/failingEmbedderThread.ts", import.meta.url).href;
const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);
/**
 * The process's threads, less the JavaScript engine's own helpers: it starts those (a concurrent collector, JIT
 * workers) lazily, whenever its heap or code grows, so they come and go with no pool involved. Less, too, the pools
 * of the runtime and of LanceDB (Bun's own pool, tokio's workers, Lance's CPU threads, the allocator's scavenger),
 * which grow and retire idle threads on their own clock: with other test files run before this one in the process,
 * one of theirs ending during a test can move the count.
 */
// (a name longer than 15 characters keeps its end: the collector shows as "ollector Thread")
const ENGINE_HELPERS = /ollector Thread|HeapHelper|JITWorker|JSCWarmUp|Bun Pool|tokio-|lance-|mi-scavenger/;
const osThreads = () => readdirSync("/proc/self/task").filter((t) => !ENGINE_HELPERS.test(readFileSync(`/proc/self/task/${t}/comm`, "utf8"))).length;
/** The process's thread count once it settles (a terminated worker's thread ends a moment later). */
async function settledThreads(want: number): Promise<number> {
  // up to 30 s: on a loaded box a thread's end takes what the scheduler gives it
  for (let i = 0; i < 1500 && osThreads() !== want; i++) await Bun.sleep(20);
  return osThreads();
}
/**
 * The process's threads after a first pool came and went: the first worker also starts the runtime's own helpers
 * (JIT, GC), which stay for the process's life; only what comes after that is the pool's.
 */
async function baseline(): Promise<number> {
  const warm = await EmbedderThreads.load(modelDir, { count: 1 });
  await warm.embed(["warm"]);
  await warm.dispose();
  while (EmbedderThread.running > 0) await Bun.sleep(20);
  // its OS thread ends a moment after its close event (a fixed 200 ms was short on a loaded box): until the count
  // stops falling
  let n = osThreads();
  for (;;) {
    await Bun.sleep(200);
    const m = osThreads();
    if (m >= n) return m;
    n = m;
  }
}
const TEXTS = Array.from({ length: 41 }, (_, i) => (i % 3 ? `dragon ${i} gold mountain road `.repeat(1 + (i % 7)) : `king ${i} queen`).trim());

let inThread: TransformersEmbedder;
beforeAll(async () => {
  writeTinyOnnxModel(modelDir, { dims: 32 });
  writeTinyOnnxModel(heavyDir, { dims: 256, layers: 4 });
  inThread = await TransformersEmbedder.load(modelDir, { threads: 1 });
});
afterAll(async () => {
  await inThread?.dispose();
  tmp.cleanup();
});

describe("EmbedderThreads: the model in worker threads", () => {
  test("the same vectors as in the calling thread, in input order, with the same id and size", async () => {
    const pool = await EmbedderThreads.load(modelDir, { count: 2 });
    try {
      expect(pool.id).toBe(inThread.id);
      expect(pool.dims).toBe(inThread.dims);
      const [a, b] = await Promise.all([pool.embed(TEXTS), inThread.embed(TEXTS)]);
      expect(a).toHaveLength(TEXTS.length);
      for (let i = 0; i < TEXTS.length; i++) expect(cos(a[i], b[i])).toBeGreaterThanOrEqual(0.99999);
      expect(await pool.embed([])).toEqual([]);
    } finally {
      await pool.dispose();
    }
  });

  test("a call of one text goes before the texts of a batch already waiting", async () => {
    const pool = await EmbedderThreads.load(modelDir, { count: 1 });
    try {
      const order: string[] = [];
      const batch = pool.embed(Array.from({ length: 300 }, (_, i) => `lore ${i} `.repeat(20))).then(() => order.push("batch"));
      const query = pool.embed(["where is the dragon"]).then(() => order.push("query"));
      await Promise.all([batch, query]);
      expect(order).toEqual(["query", "batch"]);
    } finally {
      await pool.dispose();
    }
  });

  for (const [how, text] of [
    ["exits", "exit this thread"],
    ["throws an uncaught error", "throw in this thread"],
  ] as const) {
    test(`a thread that ${how} fails its call with a clear error, and a new thread takes its place`, async () => {
      const pool = await EmbedderThreads.load(modelDir, { count: 2, entry: FAILING });
      try {
        const texts = [...TEXTS.slice(0, 10), text, ...TEXTS.slice(10, 20)];
        const failed = await pool.embed(texts).then(
          () => null,
          (e) => e,
        );
        expect(failed).toBeInstanceOf(EmbedderThreadError);
        expect(String(failed.message)).toMatch(/embedding thread (failed|exited)/);
        // the next calls are served, by the surviving thread and the one started in the dead one's place
        const after = await pool.embed(TEXTS);
        const want = await inThread.embed(TEXTS);
        for (let i = 0; i < TEXTS.length; i++) expect(cos(after[i], want[i])).toBeGreaterThanOrEqual(0.99999);
        for (let i = 0; i < 250 && pool.liveThreads < 2; i++) await Bun.sleep(20);
        expect(pool.liveThreads).toBe(2);
        expect(pool.restarts).toBe(1);
      } finally {
        await pool.dispose();
      }
    });
  }

  test("when no thread can be started again, waiting work fails instead of hanging", async () => {
    const dir = tempDir("lorehold-threads-gone-");
    const own = join(dir.dir, "tiny");
    writeTinyOnnxModel(own, { dims: 32 });
    const pool = await EmbedderThreads.load(own, { count: 1, entry: FAILING });
    try {
      renameSync(own, `${own}-moved`); // the model is gone: a new thread cannot load it
      await expect(pool.embed(["exit this thread"])).rejects.toThrow(/embedding thread exited/);
      await expect(pool.embed(["dragon"])).rejects.toThrow(/could not be restarted: .*not found/);
    } finally {
      await pool.dispose();
      dir.cleanup();
    }
  });

  test("dispose ends every thread; later calls fail", async () => {
    const before = await baseline();
    const pool = await EmbedderThreads.load(modelDir, { count: 2 });
    expect(osThreads()).toBeGreaterThanOrEqual(before + 2);
    // handled before dispose: dispose waits for the threads, and a rejection unhandled meanwhile fails the test
    const running = pool.embed(Array.from({ length: 200 }, (_, i) => `lore ${i}`)).then(
      () => null,
      (e: Error) => e,
    );
    await pool.dispose();
    expect((await running)?.message).toMatch(/disposed/);
    await expect(pool.embed(["x"])).rejects.toThrow(/disposed/);
    expect(await settledThreads(before)).toBe(before);
    expect(EmbedderThread.running).toBe(0);
  });

  // A terminate that lands while ONNX Runtime runs a pass in the thread aborts the whole process (onnxruntime-node's
  // binding throws a C++ exception it cannot hand over): each round here disposes with both threads mid-pass.
  test("dispose while passes run, many times: the process lives, the calls fail as disposed, every thread ends", async () => {
    const before = await baseline();
    for (let round = 0; round < 12; round++) {
      const pool = await EmbedderThreads.load(heavyDir, { count: 2 });
      const batch = pool.embed(LONG).then(
        () => null,
        (e: Error) => e,
      );
      // The query goes before the waiting batch texts: once it is answered, both threads are in batch passes
      // (a pass is ~70 ms here and a thread takes its next text at once); the sleep varies where in the pass.
      await pool.embed(["where is the dragon"]);
      await Bun.sleep(Math.random() * 40);
      await pool.dispose();
      expect((await batch)?.message).toMatch(/disposed/);
      await expect(pool.embed(["x"])).rejects.toThrow(/disposed/);
    }
    expect(await settledThreads(before)).toBe(before);
    expect(EmbedderThread.running).toBe(0);
    expect(EmbedderThread.abandoned).toBe(0);
  }, 120_000);

  test("a thread that does not finish its pass in time is left behind: dispose returns, the thread ends when it can", async () => {
    const before = EmbedderThread.running;
    const pool = await EmbedderThreads.load(modelDir, { count: 1, entry: FAILING, closeTimeoutMs: 200 });
    // stalled until the test says so: the close, queued behind the pass, cannot be answered before the bound
    const release = join(tmp.dir, "end-the-stall");
    const stuck = pool.embed([`stall this thread until ${release}`]).then(
      () => null,
      (e: Error) => e,
    );
    const abandoned = EmbedderThread.abandoned;
    await pool.dispose();
    // dispose returned while the thread is still in its pass: left behind, not waited for
    expect(EmbedderThread.running).toBe(before + 1);
    expect(EmbedderThread.abandoned).toBe(abandoned + 1);
    expect((await stuck)?.message).toMatch(/disposed/);
    // once out of the stall it answers the close and is ended
    writeFileSync(release, "");
    while (EmbedderThread.running > before) await Bun.sleep(20);
  }, 30_000);

  test("a model that does not load fails the start and leaves no thread behind", async () => {
    const before = await baseline();
    await expect(EmbedderThreads.load(join(tmp.dir, "nowhere"), { count: 2 })).rejects.toThrow(/not found/);
    expect(await settledThreads(before)).toBe(before);
  });
});

describe("the server's embedder threads", () => {
  test("a thread dying in an indexing step: the step ends, the document that killed it FAILED with the reason, the rest indexed", async () => {
    const embedder = await EmbedderThreads.load(modelDir, { count: 2, entry: FAILING });
    const t = await createTestApp({}, { loadModel: false, embedder });
    try {
      const projectId = createProject(t.app.ctx, { name: "Crashes" }).id;
      const ids = ["The dragon sleeps under the mountain.", "exit this thread", "The toll chain is lowered at night.", "Garrick brews a black beer."].map(
        (content, i) => createDocument(t.app.ctx, projectId, { name: `doc ${i}`, content, tags: [] }).id,
      );
      for (let i = 0; i < 10; i++) {
        const r = (await t.app.scheduler.trigger("indexer"))!.lastResult as { indexed: number; failed: number } | null;
        if (!r || r.indexed + r.failed === 0) break;
      }
      const row = (id: string) => t.app.ctx.db.query<{ status: string; error_message: string | null }, [string]>("SELECT status, error_message FROM documents WHERE id = ?").get(id)!;
      expect(ids.map((id) => row(id).status)).toEqual(["COMPLETED", "FAILED", "COMPLETED", "COMPLETED"]);
      expect(row(ids[1]).error_message).toMatch(/embedding thread exited/);
    } finally {
      await t.close();
      await embedder.dispose();
    }
  });

  test("the server stops cleanly with embeddings under way, several times: the calls fail as disposed, every thread ends", async () => {
    for (let round = 0; round < 4; round++) {
      const t = await createTestApp({ embeddingModel: "heavy-bert", modelsDir, embeddingThreads: 2 }, { loadModel: false });
      const embedder = t.app.ctx.vectors.embedder as EmbedderThreads;
      const batch = embedder.embed(LONG).then(
        () => null,
        (e: Error) => e,
      );
      await embedder.embed(["where is the dragon"]); // answered: both threads are now in batch passes
      await t.close();
      expect((await batch)?.message).toMatch(/disposed/);
      await expect(embedder.embed(["x"])).rejects.toThrow(/disposed/);
      for (let i = 0; i < 1500 && EmbedderThread.running > 0; i++) await Bun.sleep(20); // ending takes what the box gives it
      expect(EmbedderThread.running).toBe(0);
    }
  }, 60_000);

  test("embeddingThreads starts that many; they end when the server stops", async () => {
    const t = await createTestApp({ embeddingModel: "tiny-bert", modelsDir, embeddingThreads: 2 }, { loadModel: false });
    const embedder = t.app.ctx.vectors.embedder as EmbedderThreads;
    expect(embedder).toBeInstanceOf(EmbedderThreads);
    expect(embedder.threadCount).toBe(2);
    expect(EmbedderThread.running).toBe(2);
    const [v] = await embedder.embed(["the river rises"]);
    expect(cos(v, (await inThread.embed(["the river rises"]))[0])).toBeGreaterThanOrEqual(0.99999);
    await t.close();
    // each thread's "close" event has come: the threads have ended, not merely been told to
    for (let i = 0; i < 1500 && EmbedderThread.running > 0; i++) await Bun.sleep(20); // ending takes what the box gives it
    expect(EmbedderThread.running).toBe(0);
  }, 60_000);
});
