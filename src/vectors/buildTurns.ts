/** CPU a search lends a running background build, after its own answer (ms). */
export const NUDGE_MS = 4;

/**
 * The process's CPU time (ms): a budget counted in wall time shrinks to nothing on a loaded box. (The thread's own
 * clock would leave out LanceDB's threads, but it moves in steps of ~1–4 ms here, too coarse for a 4 ms budget.)
 */
const cpuNow = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/**
 * Runs a background build (the IVF index's training and listing, a generator of steps of a few ms each) on
 * whichever comes first: the event loop's next timer turn (one step), or the next search of the cache (steps for
 * NUDGE_MS of CPU, once the search has returned its answer, in the same turn). Why both: requests that come back
 * to back in process (`app.handle` in a loop, as bench/preview-overhead.ts sends them) resolve every await as a
 * microtask, so no timer runs between them, and a build resumed only by timers never finished (measured: 2,000
 * searches, still building). The steps a search lends run synchronously, one after another: had each been awaited,
 * the next request would have run between two of them and spent the budget itself. At 100,000 rows a build takes
 * ~2 s of CPU: ~500 back-to-back searches that each pay up to 4 ms more (bench/index-under-load.ts); a server taking
 * requests over sockets turns its loop between them and the timers do the work.
 */
export class BuildTurns {
  /** the waiting build's wake-up, until something runs it */
  private wake: ((budgetMs: number) => void) | null = null;

  /** Runs `steps` to their end (the first step on the next timer or search, not now); rejects once `stopped`. */
  drive<T>(steps: Generator<void, T>, stopped: () => boolean): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const wait = () => {
        const wake = (budgetMs: number) => {
          if (this.wake !== wake) return; // already woken (a timer after a search, or the other way round)
          this.wake = null;
          run(budgetMs);
        };
        this.wake = wake;
        setTimeout(() => wake(0), 0);
      };
      const run = (budgetMs: number) => {
        const until = cpuNow() + budgetMs;
        try {
          do {
            if (stopped()) throw new Error("cache evicted");
            const r = steps.next();
            if (r.done) return resolve(r.value);
          } while (cpuNow() < until);
        } catch (e) {
          return reject(e);
        }
        wait();
      };
      wait();
    });
  }

  /** A search is answering: the waiting build, if any, runs for NUDGE_MS once the search has returned. */
  nudge(): void {
    const wake = this.wake;
    if (wake) queueMicrotask(() => wake(NUDGE_MS));
  }
}
