import { endExtractionThread, watchThread } from "./endThread.ts";

/**
 * One extraction thread kept between scans, for speed: starting a thread loads the extractor's modules
 * (~70 ms of CPU, htmlparser2's entity tables and the yaml library among them), and a fresh thread runs
 * its first files unoptimised; a small project's scan is a fraction of a second, so these were most of
 * it. A submitted archive starts a thread while it uploads (`warmExtractionThread`); a scan takes it,
 * and gives it back when it ended cleanly. An idle thread does not keep the process alive and ends
 * after IDLE_MS. Process-wide: a thread holds no project's data between scans (each scan sends its own
 * setup, and the thread drops it at the end), and two scans at once simply get two threads.
 */

/** How long a thread waits for the next scan before it ends (and its heap goes with it). */
const IDLE_MS = 60_000;

let idle: { worker: Worker; timer: ReturnType<typeof setTimeout> } | null = null;

/** A thread for a scan: the idle one, else a new one. The caller owns it until `returnExtractionThread` or `endExtractionThread`. */
export function takeExtractionThread(): Worker {
  if (idle) {
    const { worker, timer } = idle;
    idle = null;
    clearTimeout(timer);
    worker.ref();
    return worker;
  }
  return watchThread(new Worker(threadEntryUrl()));
}

/** A scan that ended cleanly hands its thread back for the next one (one is kept; a second is ended). */
export function returnExtractionThread(worker: Worker): void {
  worker.onmessage = null;
  worker.onerror = null;
  if (idle) {
    void endExtractionThread(worker);
    return;
  }
  park(worker);
}

/** A scan is coming (an archive was submitted): start its thread now, so that it is loaded when the scan begins. */
export function warmExtractionThread(): void {
  if (!idle) park(watchThread(new Worker(threadEntryUrl())));
}

/** Ends the idle thread now (tests of a thread's lifetime; a server's stop need not: the thread is unref'd). */
export function endIdleExtractionThread(): Promise<void> {
  if (!idle) return Promise.resolve();
  const { worker, timer } = idle;
  clearTimeout(timer);
  idle = null;
  return endExtractionThread(worker);
}

function park(worker: Worker): void {
  worker.unref();
  const drop = () => {
    if (idle?.worker !== worker) return;
    clearTimeout(idle.timer);
    idle = null;
    void endExtractionThread(worker);
  };
  const timer = setTimeout(drop, IDLE_MS);
  timer.unref();
  // A thread that failed while it waited (its code did not load) must not be handed to a scan: nothing
  // would answer it. A taken thread gets the scan's own handler, which fails the scan instead.
  worker.onerror = drop;
  idle = { worker, timer };
}

/**
 * The thread's code: beside this file when run from source. In the executable every module's
 * import.meta.url is the bundle's root (file:///$bunfs/root/<name>, B:/~BUN/root on Windows) and
 * the build embeds the entry under its path from src/, the entry points' common folder
 * (scripts/build/buildExecutable.ts; test/exe/e2e.test.ts runs a scan inside the executable).
 */
function threadEntryUrl(): string {
  const embedded = import.meta.url.includes("/$bunfs/") || import.meta.url.includes("~BUN");
  return new URL(embedded ? "./scanner/worker/extractionThreadEntry.ts" : "./extractionThreadEntry.ts", import.meta.url).href;
}
