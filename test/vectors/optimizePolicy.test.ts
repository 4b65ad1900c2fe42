import { expect, test } from "bun:test";
import type { Generation } from "../../src/vectors/generation.ts";
import { Mutex } from "../../src/vectors/Mutex.ts";
import { OptimizePolicy, optimizeDue } from "../../src/vectors/OptimizePolicy.ts";

// When LanceDB's compaction (which rewrites the whole table below LanceDB's 1M-row fragment target) runs: during a
// burst after a quarter's growth, on a pause only when it is worth rewriting the table.
test.each([
  // rows since, commits since, table rows, idle → due
  [2_000, 8, 0, false, true], // a burst into a small table: the 2,000-row floor
  [1_999, 8, 0, false, false],
  [25_000, 98, 100_000, false, true], // a quarter's growth
  [24_999, 98, 100_000, false, false],
  [10, 1, 5_000, true, true], // a pause after a write to a small table: cheap, always
  [256, 1, 100_000, true, false], // a pause after one batch into a big table: not worth a rewrite of 100,000 rows
  [6_250, 25, 100_000, true, true], // a sixteenth
  [63, 63, 1_000_000, true, false], // single memory writes into a big table…
  [64, 64, 1_000_000, true, true], // …until 64 fragments piled up
  [0, 0, 5_000, true, false], // nothing written
])("optimizeDue(%p rows, %p commits, table %p, idle %p) = %p", (rows, commits, at, idle, due) => {
  expect(optimizeDue(rows, commits, at, idle)).toBe(due);
});

function fakeStore(rows: number) {
  const calls = { chunks: 0, memories: 0 };
  const table = (kind: "chunks" | "memories") => ({
    countRows: async () => rows,
    optimize: async () => {
      calls[kind]++;
    },
  });
  const g = { chunks: table("chunks"), memories: table("memories") } as unknown as Generation;
  const store = { locks: { chunks: new Mutex(), memories: new Mutex() }, writeTargets: () => [g], activeGeneration: () => g, closing: false, closed: false };
  return { policy: new OptimizePolicy(store), g, calls };
}

test("a pause after a batch written into a big table does not rewrite it; a pause after 64 commits does", async () => {
  const { policy, g, calls } = fakeStore(100_000);
  await policy.measure(g);
  policy.noteCommit("chunks", 256);
  // the idle delay is 2 s: a timer set for it would have fired (timers fire in order) before this one
  await Bun.sleep(2_300);
  await policy.idle();
  expect(calls.chunks).toBe(0);
  for (let i = 0; i < 63; i++) policy.noteCommit("chunks", 1);
  await Bun.sleep(2_300);
  await policy.idle();
  expect(calls.chunks).toBe(1);
  policy.clearTimers();
});

test("a pause after writes into a small table compacts it, as before", async () => {
  const { policy, g, calls } = fakeStore(5_000);
  await policy.measure(g);
  policy.noteCommit("memories", 1);
  await Bun.sleep(2_300);
  await policy.idle();
  expect(calls.memories).toBe(1);
  expect(calls.chunks).toBe(0);
});
