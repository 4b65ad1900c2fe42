import { describe, expect, test } from "bun:test";
import { endExtractionThread, watchThread } from "../../../src/scanner/worker/endThread.ts";
import { endIdleExtractionThread, takeExtractionThread } from "../../../src/scanner/worker/idleThread.ts";
import type { FromThread, ToThread } from "../../../src/scanner/worker/threadMessages.ts";

/** Resolves with the thread's "close" event (its end, whatever ended it). */
const closed = (w: Worker) => new Promise<void>((r) => w.addEventListener("close", () => r(), { once: true }));

const LORE = new TextEncoder().encode("# The Mill\n\nThe old mill on the Black River grinds the village's grain; Garrick the miller keeps its wheel turning.\n");

describe("ending an extraction thread", () => {
  test("a thread asked to end answers between messages and is ended on its answer, far before the bound", async () => {
    await endIdleExtractionThread();
    const w = takeExtractionThread();
    const answers: FromThread["type"][] = [];
    const ended = closed(w);
    // the answer the main thread ends it on (a listener of its own: endExtractionThread takes the handler over)
    w.addEventListener("message", (e) => answers.push((e as MessageEvent<FromThread>).data.type));
    w.postMessage({ type: "setup", setup: { paths: ["lore/mill.md"], userContext: null, vocab: { tags: [], locations: [] } }, stop: new Int32Array(new SharedArrayBuffer(4)) } satisfies ToThread);
    // a bound no test run reaches: the end can only come from the thread's answer
    await endExtractionThread(w, 600_000);
    await ended;
    expect(answers).toContain("closed");
  });

  test("files a stopped scan queued are skipped: the thread answers the close behind them without extracting them", async () => {
    await endIdleExtractionThread();
    const w = takeExtractionThread();
    const answers: FromThread["type"][] = [];
    w.addEventListener("message", (e) => answers.push((e as MessageEvent<FromThread>).data.type));
    const stop = new Int32Array(new SharedArrayBuffer(4));
    const paths = Array.from({ length: 20 }, (_, i) => `lore/mill${i}.md`);
    w.postMessage({ type: "setup", setup: { paths, userContext: null, vocab: { tags: [], locations: [] } }, stop } satisfies ToThread);
    // stopped before the files are even posted: whatever the thread's pace, none of them is extracted
    Atomics.store(stop, 0, 1);
    for (const [id, relativePath] of paths.entries()) w.postMessage({ type: "file", id, relativePath, bytes: LORE.slice() } satisfies ToThread);
    const ended = closed(w);
    await endExtractionThread(w, 600_000);
    await ended;
    expect(answers).not.toContain("done");
    expect(answers).not.toContain("batch");
    expect(answers).toContain("closed");
  });

  test("the same files, not stopped, are extracted (what the test above tells apart)", async () => {
    await endIdleExtractionThread();
    const w = takeExtractionThread();
    const answers: FromThread["type"][] = [];
    const stop = new Int32Array(new SharedArrayBuffer(4));
    const paths = Array.from({ length: 3 }, (_, i) => `lore/mill${i}.md`);
    const allDone = new Promise<void>((resolve) =>
      w.addEventListener("message", (e) => {
        answers.push((e as MessageEvent<FromThread>).data.type);
        if (answers.filter((a) => a === "done").length === paths.length) resolve();
      }),
    );
    w.postMessage({ type: "setup", setup: { paths, userContext: null, vocab: { tags: [], locations: [] } }, stop } satisfies ToThread);
    for (const [id, relativePath] of paths.entries()) w.postMessage({ type: "file", id, relativePath, bytes: LORE.slice() } satisfies ToThread);
    await allDone;
    await endExtractionThread(w, 600_000);
  });

  test("a thread that does not answer (stuck in one long message) is terminated once the bound has passed", async () => {
    // a thread whose every message runs until it is terminated: it never answers the close
    const source = "self.onmessage = () => { for (;;) {} };";
    const w = new Worker(URL.createObjectURL(new Blob([source], { type: "application/javascript" })));
    const ended = closed(w);
    let answered = false;
    w.postMessage({ type: "file" });
    await endExtractionThread(w, 300).then(() => (answered = true));
    await ended;
    expect(answered).toBe(true);
  });

  test("a thread that already ended on its own is waited for, not left pending", async () => {
    const w = watchThread(new Worker(URL.createObjectURL(new Blob(["self.onmessage = () => process.exit(0);"], { type: "application/javascript" }))));
    const ended = closed(w);
    w.postMessage({ type: "file" });
    // its own exit, in answer to the first message: the end, asked after it, returns at once (no answer can come)
    await ended;
    await endExtractionThread(w, 600_000);
  });
});
