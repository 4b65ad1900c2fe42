/** CPU a search lends a running background build, after its own answer (ms). */
export const NUDGE_MS = 2;

/**
 * The pauses of a background build (the IVF index's training and listing), which resume on whichever comes first:
 * the event loop's next timer turn, or the next search of the cache. Why both: requests that come back to back in
 * process (`app.handle` in a loop, as bench/preview-overhead.ts sends them) resolve every await as a microtask, so
 * no timer runs between them and a build resumed only by timers never finished (measured: 2,000 searches, still
 * building). A search instead lets the build run for NUDGE_MS after its answer, in the same turn, through as many
 * steps as fit; a server taking requests over sockets turns its loop between them and the timers do the work.
 */
export class BuildTurns {
  private waiting: (() => void) | null = null;
  /** until then (performance.now()), a pause resumes at once: a search's lent time */
  private until = 0;

  /** A build's pause between steps; `stopped` is checked on resuming (an evicted cache's build throws). */
  async pause(stopped: () => boolean): Promise<void> {
    if (performance.now() >= this.until) {
      await new Promise<void>((resolve) => {
        let done = false;
        const go = () => {
          if (done) return;
          done = true;
          if (this.waiting === go) this.waiting = null;
          resolve();
        };
        this.waiting = go;
        setTimeout(go, 0);
      });
    }
    if (stopped()) throw new Error("cache evicted");
  }

  /** After a search has its answer: the waiting build, if any, goes on in this turn for NUDGE_MS. */
  nudge(): void {
    const go = this.waiting;
    if (!go) return;
    queueMicrotask(() => {
      this.until = performance.now() + NUDGE_MS;
      go();
    });
  }
}
