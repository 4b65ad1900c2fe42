import { afterAll, afterEach, beforeEach, expect, test } from "bun:test";
import { join } from "node:path";
import { columnCopyOverBrokenBlock, denseQueries, indexOverCutFile, sparseQueries } from "./support/brokenBuilds.ts";
import { chunk, tempDir } from "./helpers.ts";

// A background build (the IVF index's, the column copy's) that throws on a real code path: contained by the cache,
// logged once with the project and the build, held back before it is tried again, and the exact path answers all the
// while, exactly as a cache that never built. (test/vectors/support/brokenBuilds.ts makes the broken inputs.)

const tmp = tempDir();
afterAll(tmp.cleanup);

let logged: string[] = [];
const consoleError = console.error;
beforeEach(() => {
  logged = [];
  console.error = (...args: unknown[]) => void logged.push(args.map(String).join(" "));
});
afterEach(() => {
  console.error = consoleError;
});

const ids = (hits: { id: string; score: number }[]) => hits.map((h) => `${h.id} ${h.score.toFixed(5)}`);

test("an index build that throws (a snapshot file cut short under a block's rows) leaves the exact scan answering, logs once, and waits before it is tried again", async () => {
  const { cache, reference } = indexOverCutFile(tmp.dir, {});
  await cache.indexIdle();
  expect(cache.mode).toBe("exact");
  expect(logged).toHaveLength(1);
  expect(logged[0]).toContain("index build of project p");
  expect(logged[0]).toContain("vector cache snapshot cut short");
  const tags = new Set(["a"]);
  for (const q of denseQueries(12)) expect(ids(cache.search(q, tags, 3))).toEqual(ids(reference.search(q, tags, 3)));
  // writes and searches meanwhile do not start it again at once (it would fail the same way, a build's CPU a write)
  cache.setDocument("later", [chunk("p", "later", 0, "", ["a"])], denseQueries(1));
  expect(cache.mode).toBe("exact");
  await cache.indexIdle();
  expect(logged).toHaveLength(1);
}, 60_000);

test("once its wait is over the build runs again: a failure again is not logged again, and a mended input gives the index", async () => {
  const { cache, mend } = indexOverCutFile(join(tmp.dir), { buildRetryMs: 0 });
  await cache.indexIdle();
  expect(logged).toHaveLength(1);
  cache.search(denseQueries(1)[0], new Set(["a"]), 3); // a search tries it again
  expect(cache.mode).toBe("building");
  await cache.indexIdle();
  expect(cache.mode).toBe("exact");
  expect(logged).toHaveLength(1);
  mend(); // the document written again, its vectors in memory
  await cache.indexIdle();
  expect(cache.mode).toBe("indexed");
  expect(logged).toHaveLength(1);
}, 60_000);

test("a column copy whose slice throws (an inconsistent block) is dropped, logged once, and the row scan answers; no uncaught error", async () => {
  const { cache, reference, tags } = columnCopyOverBrokenBlock({});
  const queries = sparseQueries(20);
  expect(ids(cache.search(queries[0], tags, 5))).toEqual(ids(reference.search(queries[0], tags, 5))); // asks for the copy
  expect(cache.columnState).toBe("building");
  await cache.indexIdle();
  expect(cache.columnState).toBe("none");
  expect(logged).toHaveLength(1);
  expect(logged[0]).toContain("column copy of project p");
  expect(logged[0]).toContain("TypeError");
  for (const q of queries) expect(ids(cache.search(q, tags, 5))).toEqual(ids(reference.search(q, tags, 5)));
  // held back: these searches did not ask for another copy
  expect(cache.columnState).toBe("none");
  // once the wait is over, a search asks again; failing again, it is not logged again
  const retried = columnCopyOverBrokenBlock({ buildRetryMs: 0 });
  for (const q of queries.slice(0, 3)) {
    retried.cache.search(q, tags, 5);
    await retried.cache.indexIdle();
  }
  expect(logged).toHaveLength(2); // the first cache's line and this one's, once each
  expect(logged[1]).toContain("column copy of project p");
});

test("a server process whose column copy throws in the background keeps serving", async () => {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "support", "brokenBuildServer.ts")], { stdout: "pipe", stderr: "pipe" });
  try {
    const reader = proc.stdout.getReader();
    let out = "";
    while (!out.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
    const port = Number(out.trim());
    expect(port).toBeGreaterThan(0);
    // each search asks for the copy and runs its slices after answering: the first throws in an immediate
    const answers: number[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await fetch(`http://127.0.0.1:${port}/search?q=${i}`);
      answers.push(r.status);
      await fetch(`http://127.0.0.1:${port}/idle`); // until the copy's build has ended (failed)
    }
    expect(answers).toEqual([200, 200, 200, 200]);
    const state = await (await fetch(`http://127.0.0.1:${port}/state`)).json();
    expect(state).toEqual({ columns: "none", alive: true });
  } finally {
    proc.kill();
    await proc.exited;
  }
  const err = await new Response(proc.stderr).text();
  expect(err.match(/column copy of project p/g)?.length).toBe(1);
}, 60_000);
