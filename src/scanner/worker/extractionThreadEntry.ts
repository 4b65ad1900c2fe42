/**
 * The scan's extraction thread (a Bun Worker; for speed): decoding,
 * extracting and classifying a file is most of a scan's CPU, so it runs here
 * while the main thread reads and inflates the next entries and stores the
 * candidates. Messages: ExtractionThread.ts. The built executable embeds this
 * file as a second entry point (scripts/build/buildExecutable.ts).
 */
import { FileExtractor } from "./FileExtractor.ts";
import type { FromThread, ToThread } from "./threadMessages.ts";

declare const self: Worker;

let extractor: FileExtractor | null = null;
/** the scan's stop flag (threadMessages.ts): set, its files still queued here are skipped */
let stop: Int32Array | null = null;
const post = (m: FromThread) => self.postMessage(m);

self.onmessage = (e: MessageEvent<ToThread>) => {
  const m = e.data;
  if (m.type === "close") {
    // between messages: the main thread ends the thread on this answer (endThread.ts)
    extractor = null;
    post({ type: "closed" });
    return;
  }
  if (m.type !== "setup" && stop !== null && Atomics.load(stop, 0) !== 0) return;
  try {
    if (m.type === "setup") {
      stop = m.stop;
      extractor = new FileExtractor(m.setup, { batch: (candidates, skipped) => post({ type: "batch", candidates, skipped }) });
    } else if (m.type === "file") {
      extractor!.file(m.relativePath, m.bytes);
      post({ type: "done", id: m.id });
    } else {
      extractor!.end();
      post({ type: "ended" });
      // The thread may wait for the next scan (idleThread.ts): nothing of this one stays in its heap.
      extractor = null;
      Bun.gc(true);
    }
  } catch (err) {
    post({ type: "failed", message: err instanceof Error ? err.message : String(err), stack: err instanceof Error ? err.stack : undefined });
  }
};
