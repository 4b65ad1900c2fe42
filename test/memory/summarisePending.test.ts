import { setDefaultTimeout, afterAll, beforeAll, describe, expect, test } from "bun:test";
import { LlmEngine } from "../../src/llm/LlmEngine.ts";
import { createLogger } from "../../src/ops/logger.ts";
import { erasePlayerRows, listMemories } from "../../src/npc/memory/memoryAdmin.ts";
import { addPendingSummary, deletePendingSummary, nextPendingSummary, playerPendingSummaries, savePendingDrafts } from "../../src/npc/memory/pendingSummaryStore.ts";
import { MAX_SUMMARY_ATTEMPTS, SUMMARY_RETRY_MS, summarisePendingSession, summarisePendingSessions, type SummaryDeps } from "../../src/npc/memory/summarisePending.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { memoryWorld, vectorIds } from "./memoryWorld.ts";

// The memory-summary job's edges, each state built as a crash, an erase or a shutdown leaves it, on real
// llama.cpp (the suite's tiny random-weight model: what is asserted never depends on a summary's words).
setDefaultTimeout(120_000);

const MODEL = ensureTinyModel(undefined, { nCtx: 2048 });
let t: TestApp;
let w: ReturnType<typeof memoryWorld>;
let deps: SummaryDeps;
const live = () => new AbortController().signal;
const SESSION = [
  { role: "user" as const, content: "My name is Tamsin Orrick and I owe you 30 gold." },
  { role: "assistant" as const, content: "I will remember that, Tamsin." },
];

function queue(playerId: string): number {
  const at = t.clock.now().toISOString();
  const id = addPendingSummary(t.app.db, { projectId: w.p1, mindId: w.garrick, playerId, mindName: "Garrick", messages: SESSION, createdAt: at });
  return id;
}
const rowOf = (id: number) => nextPendingSummary(t.app.db, id - 1, t.clock.now().toISOString())!;
const rows = (playerId: string) => playerPendingSummaries(t.app.db, w.p1, playerId);

beforeAll(async () => {
  t = await createTestApp({ model: MODEL, parallel: 2, contextSize: 2048, threads: 1 });
  w = memoryWorld(t.app.ctx);
  deps = t.app.ctx;
});
afterAll(() => t.close());

describe("a summary running for a player who is erased stores nothing", () => {
  test("erased while the summary generates: the written summary is dropped", async () => {
    const row = rowOf(queue("erased-generating"));
    const running = summarisePendingSession(deps, row, live()); // its generation is in flight from here
    expect(erasePlayerRows(t.app.ctx, w.p1, "erased-generating").sessionsDeleted).toBe(1);
    expect(await running).toEqual({ kind: "erased" });
    expect(listMemories(t.app.ctx, w.p1, "erased-generating")).toEqual([]);
    expect(rows("erased-generating")).toEqual([]);
  });

  test("erased once the summary was written, before its memories are stored: none is stored, no vector is left", async () => {
    const id = queue("erased-storing");
    savePendingDrafts(t.app.db, id, [{ text: "The player's name is Tamsin Orrick.", importance: 6, topics: ["name"] }, { text: "The player owes 30 gold.", importance: 7, topics: [] }]);
    const row = rowOf(id);
    const running = summarisePendingSession(deps, row, live());
    erasePlayerRows(t.app.ctx, w.p1, "erased-storing");
    expect(await running).toEqual({ kind: "erased" });
    expect(listMemories(t.app.ctx, w.p1, "erased-storing")).toEqual([]);
    expect(await vectorIds(t.app.ctx, w.p1, w.garrick, "erased-storing")).toEqual([]);
  });

  test("not erased: the same written summary is stored and its row deleted with the last memory", async () => {
    const id = queue("kept");
    savePendingDrafts(t.app.db, id, [{ text: "The player's name is Tamsin Orrick.", importance: 6, topics: ["name"] }, { text: "The player owes 30 gold.", importance: 7, topics: [] }]);
    expect(await summarisePendingSession(deps, rowOf(id), live())).toEqual({ kind: "stored", memories: 2 });
    expect(listMemories(t.app.ctx, w.p1, "kept").map((m) => m.text).sort()).toEqual(["The player owes 30 gold.", "The player's name is Tamsin Orrick."]);
    expect(rows("kept")).toEqual([]);
  });
});

describe("shutdown and failures", () => {
  test("a summary cut by the model's disposal (shutdown) leaves its row, untouched, for the next start", async () => {
    const llm = await LlmEngine.load({ modelPath: MODEL, threads: 1, parallel: 1, contextSize: 2048 });
    const id = queue("cut");
    const running = summarisePendingSession({ ...deps, generation: llm }, rowOf(id), live());
    await llm.dispose(); // aborts the generation in flight
    expect(await running).toEqual({ kind: "stopped" });
    expect(rows("cut")).toMatchObject([{ id, drafts: null, attempts: 0 }]);
    deletePendingSummary(t.app.db, id);
  });

  test("a stopped job, or one without a model, leaves every row waiting", async () => {
    const id = queue("waiting");
    const stopped = new AbortController();
    stopped.abort();
    expect(await summarisePendingSessions(deps, stopped.signal)).toMatchObject({ summarised: 0, waiting: 1 });
    expect(await summarisePendingSessions({ ...deps, generation: null }, live())).toMatchObject({ summarised: 0, waiting: 1 });
    expect(rows("waiting")).toMatchObject([{ id, drafts: null, attempts: 0 }]);
    deletePendingSummary(t.app.db, id);
  });

  test(`a failing engine: each run counts an attempt; after ${MAX_SUMMARY_ATTEMPTS} the row is given up, logged`, async () => {
    const broken = await LlmEngine.load({ modelPath: MODEL, threads: 1, parallel: 1, contextSize: 2048 });
    await broken.dispose(); // generate() now throws
    const lines: string[] = [];
    const log = createLogger("warn", {}, (l) => lines.push(l));
    const id = queue("failing");
    const runJob = () => summarisePendingSessions({ ...deps, generation: broken, log }, live());
    for (let run = 1; run < MAX_SUMMARY_ATTEMPTS; run++) {
      expect(await runJob()).toMatchObject({ failed: 1, abandoned: 0 });
      expect(rows("failing")).toMatchObject([{ id, attempts: run }]);
      // Kicks before the row's retry time leave it alone: a burst of checkpoints does not use up its attempts.
      t.clock.advance(SUMMARY_RETRY_MS * 2 ** (run - 1) - 1);
      expect(await runJob()).toMatchObject({ failed: 0, abandoned: 0, summarised: 0 });
      t.clock.advance(1);
    }
    expect(await runJob()).toMatchObject({ failed: 0, abandoned: 1 });
    expect(rows("failing")).toEqual([]);
    const last = JSON.parse(lines.at(-1)!);
    expect(last).toMatchObject({ level: "warn", msg: expect.stringContaining("given up"), attempts: MAX_SUMMARY_ATTEMPTS, err: expect.stringContaining("disposed") });
    expect(last.playerId).toBeUndefined(); // logs name no player
  });
});
