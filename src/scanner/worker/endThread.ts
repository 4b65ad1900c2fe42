import type { FromThread } from "./threadMessages.ts";

/** threads whose end was seen (a worker cannot be asked whether it still runs, and its "close" event comes once) */
const gone = new WeakSet<Worker>();

/** Starts watching a new thread for its end, so that ending it later does not wait for an answer that cannot come. */
export function watchThread(worker: Worker): Worker {
  worker.addEventListener("close", () => gone.add(worker), { once: true });
  return worker;
}

/** How long ending an extraction thread waits for it to answer before it is terminated where it stands. */
export const END_TIMEOUT_MS = 5_000;

/**
 * Ends an extraction thread the way the embedding threads end (EmbedderThread.close): asked to stop, it answers
 * "closed" between messages, and only then is it terminated; one that does not answer within `timeoutMs` (a file
 * far longer than any measured, or a thread stuck) is terminated past the bound. Why not terminate at once: a
 * terminate lands wherever the thread is, inside native code as often as not (Bun.YAML.parse, a forced collection,
 * a big regex), where a worker's termination is the runtime's least travelled path; between messages it is not.
 * A thread that ended itself (an uncaught error ends a Bun worker) is only waited for (at once, when `watchThread`
 * saw it end). Resolves once it has ended.
 */
export function endExtractionThread(worker: Worker, timeoutMs = END_TIMEOUT_MS): Promise<void> {
  if (gone.has(worker)) return Promise.resolve();
  return new Promise<void>((resolve) => {
    let done = false;
    const finish = (terminate: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      worker.removeEventListener("close", onClose);
      worker.onmessage = null;
      worker.onerror = null;
      if (terminate) worker.terminate();
      resolve();
    };
    const onClose = () => finish(false);
    worker.addEventListener("close", onClose);
    worker.onmessage = (e: MessageEvent<FromThread>) => {
      if (e.data.type === "closed") finish(true);
    };
    // an error now is the thread's own end (Bun ends a worker after an uncaught error): its "close" event follows
    worker.onerror = () => {};
    const timer = setTimeout(() => finish(true), timeoutMs);
    // the wait, not the thread, holds the process open until the bound
    worker.unref();
    try {
      worker.postMessage({ type: "close" });
    } catch {
      finish(true); // already gone
    }
  });
}
