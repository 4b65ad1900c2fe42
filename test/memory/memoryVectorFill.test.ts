import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { App } from "../../src/app/App.ts";
import { ManualClock } from "../../src/core/clock.ts";
import { openDatabase, writeTx } from "../../src/db/openDatabase.ts";
import { silentLogger } from "../../src/ops/logger.ts";
import { insertMemoryRow, toVectorRow } from "../../src/npc/memory/memoryRows.ts";
import { fillMemoryVectors, MEMORY_VECTOR_FILL_JOB } from "../../src/npc/memory/memoryVectorFill.ts";
import { readMemoryGroup } from "../../src/npc/memory/memoryVectorStore.ts";
import { tempDir, testConfig } from "../support/testApp.ts";
import { memoryWorld } from "./memoryWorld.ts";

// The one-time fill of the memories' vector copy from LanceDB (a data folder from before the copy existed), in slices
// with a progress mark: stopped midway (a simulated stop, then a real kill -9 of a serving process), the next run
// goes on from the mark instead of starting over, and ends with every memory's copy equal to LanceDB's vector.
// Real SQLite and LanceDB, hashing embedder; 10,000 memories so the fill takes ten of its 1,024-row slices (room for the
// kill to land mid-fill on a fast machine).
setDefaultTimeout(180_000);

const N = 10_000;
const dir = tempDir("lorehold-fill-");
const config = testConfig(dir);
let app: App;
let w: ReturnType<typeof memoryWorld>;
const PAIRS = 50;

const WORDS = "ale honey sword river bridge toll lantern crypt abbey bell storm ship harbour keeper marsh barley".split(" ");
const text = (i: number) => `Memory ${i}: the player spoke of the ${WORDS[i % 16]}, the ${WORDS[(i * 5 + 3) % 16]} and the ${WORDS[(i * 7 + 1) % 16]}.`;
const pairOf = (i: number) => {
  const p = i % PAIRS;
  return p < 20 ? { projectId: w.p1, mindId: w.garrick, playerId: `pl${p}` } : p < 35 ? { projectId: w.p1, mindId: w.elena, playerId: `pl${p}` } : { projectId: w.p2, mindId: w.other, playerId: `pl${p}` };
};
const count = (db: App["db"], sql: string) => db.query<{ n: number }, []>(sql).get()!.n;
const copies = (db: App["db"]) => count(db, "SELECT count(*) AS n FROM memory_vectors");
const mark = (db: App["db"]) => db.query<{ next_offset: number }, []>("SELECT next_offset FROM memory_vector_fill_progress").get()?.next_offset ?? null;
/** The state of a data folder from before the copy existed: memories in SQLite and LanceDB, no copy, no fill. */
const forgetCopy = (db: App["db"]) => db.exec("DELETE FROM memory_vectors; DELETE FROM memory_vector_fills; DELETE FROM memory_vector_fill_progress");
const open = () => App.create(config, { logger: silentLogger, loadModel: false, clock: new ManualClock(new Date()) });

/** Every memory has a copy, and each pair's group read from it ranks as LanceDB's read of the same group. */
async function expectWholeCopy(a: App) {
  expect(copies(a.db)).toBe(N);
  const side = a.ctx.vectors.memorySide!;
  for (const p of [0, 21, 40, 49]) {
    const s = pairOf(p);
    const group = readMemoryGroup(a.db, s, a.ctx.vectors.embedderId, 384)!;
    expect(group.rows).toHaveLength(N / PAIRS);
    a.ctx.vectors.memorySide = null;
    const lance = await a.ctx.vectors.searchMemories({ projectId: s.projectId, entityMindId: s.mindId, playerId: s.playerId, query: "honey ale by the river", k: 10 });
    a.ctx.vectors.activeGeneration().memoryGroups.deleted({ projectId: s.projectId });
    a.ctx.vectors.memorySide = side;
    const copy = await a.ctx.vectors.searchMemories({ projectId: s.projectId, entityMindId: s.mindId, playerId: s.playerId, query: "honey ale by the river", k: 10 });
    a.ctx.vectors.activeGeneration().memoryGroups.deleted({ projectId: s.projectId });
    expect(copy.map((h) => h.id)).toEqual(lance.map((h) => h.id));
    for (let i = 0; i < copy.length; i++) expect(copy[i].score).toBeCloseTo(lance[i].score, 2);
  }
}

beforeAll(async () => {
  app = await open();
  w = memoryWorld(app.ctx);
  const at = new Date().toISOString();
  const memories = Array.from({ length: N }, (_, i) => {
    const s = pairOf(i);
    return { s, m: { id: `mem_fill_${String(i).padStart(5, "0")}`, text: text(i), importance: 1 + (i % 10), topics: [], createdAt: at, updatedAt: at, entityMindId: s.mindId, playerId: s.playerId } };
  });
  writeTx(app.db, () => {
    for (const { s, m } of memories) insertMemoryRow(app.db, s.projectId, m);
  });
  for (let i = 0; i < N; i += 1000) await app.ctx.vectors.upsertMemories(memories.slice(i, i + 1000).map(({ s, m }) => toVectorRow(s.projectId, m)), { fresh: true });
  expect(copies(app.db)).toBe(N); // each write copies its own rows
});
afterAll(async () => {
  await app?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("the memory vector fill", () => {
  test("stopped after two slices, it keeps what it copied and the next run goes on from its mark", async () => {
    forgetCopy(app.db);
    const first = await fillMemoryVectors(app.ctx, { maxSlices: 2, yieldShare: 0 });
    expect(first).toMatchObject({ done: false, from: 0, copied: 2048 });
    expect(copies(app.db)).toBe(2048);
    expect(mark(app.db)).toBe(2048);
    const second = await fillMemoryVectors(app.ctx, { yieldShare: 0 });
    expect(second).toMatchObject({ done: true, from: 2048, copied: N - 2048, embedder: app.ctx.vectors.embedderId });
    expect(mark(app.db)).toBeNull(); // the mark goes with the fill's end
    expect(count(app.db, "SELECT count(*) AS n FROM memory_vector_fills")).toBe(1);
    await expectWholeCopy(app);
    // done: the job is a one-row check from then on
    expect((await app.scheduler.trigger(MEMORY_VECTOR_FILL_JOB))!.lastResult).toMatchObject({ copied: 0, embedder: null });
  });

  test("an abort between slices (the server's stop) leaves the mark where it stopped", async () => {
    forgetCopy(app.db);
    const stop = new AbortController();
    const run = fillMemoryVectors(app.ctx, { signal: stop.signal, yieldShare: 0.5 });
    while ((mark(app.db) ?? 0) < 1024) await Bun.sleep(1);
    stop.abort();
    const r = await run;
    expect(r.done).toBe(false);
    expect(r.copied).toBeLessThan(N);
    expect(copies(app.db)).toBe(r.copied);
    expect(mark(app.db)).toBe(r.copied);
  });

  test("kill -9 of a serving process mid-fill, then a restart: the fill resumes from its mark and completes", async () => {
    forgetCopy(app.db);
    await app.stop();
    const port = await freePort();
    const server = Bun.spawn([process.execPath, join(import.meta.dir, "..", "..", "src", "main.ts"), "serve"], {
      cwd: dir,
      env: { ...process.env, LOREHOLD_PORT: String(port), LOREHOLD_DATA_DIR: config.dataDir, LOREHOLD_MODELS_DIR: config.modelsDir, LOREHOLD_THREADS: "1", LOREHOLD_LOG_LEVEL: "warn" },
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
    });
    const stderr = new Response(server.stderr).text();
    const watch = openDatabase(join(config.dataDir, "lorehold.db"));
    let killedAt = 0;
    try {
      const deadline = Date.now() + 60_000;
      // the fill starts with the server (runOnStart); kill it once a slice is copied and the mark saved
      while ((killedAt = mark(watch) ?? 0) < 1024) {
        if (server.exitCode !== null) throw new Error(`serve exited ${server.exitCode}: ${await stderr}`);
        if (Date.now() > deadline) throw new Error(`the fill never started: ${await stderr}`);
        await Bun.sleep(2);
      }
      server.kill(9);
      expect(await server.exited).not.toBe(0);
      expect(count(watch, "SELECT count(*) AS n FROM memory_vector_fills")).toBe(0); // killed before its end
      killedAt = mark(watch)!;
      expect(killedAt).toBeGreaterThanOrEqual(1024);
      expect(killedAt).toBeLessThan(N);
      expect(copies(watch)).toBeGreaterThanOrEqual(killedAt); // what it copied stayed copied
    } finally {
      if (server.exitCode === null) server.kill(9);
      watch.close();
    }
    app = await open();
    const again = (await app.scheduler.trigger(MEMORY_VECTOR_FILL_JOB))!.lastResult;
    expect(again).toMatchObject({ done: true, from: killedAt, copied: N - killedAt });
    await expectWholeCopy(app);
  });
});

async function freePort(): Promise<number> {
  const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
}
