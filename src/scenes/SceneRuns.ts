/**
 * The turns running now, one per scene: a new turn on a scene cancels the running one (the player cut in) and
 * starts once it has stopped, so the transcript stays in order. In memory: a turn belongs to this process.
 */
export class SceneRuns {
  private readonly runs = new Map<string, { abort: AbortController; done: Promise<unknown> }>();

  running(sceneId: string): boolean {
    return this.runs.has(sceneId);
  }

  /** Cancels the scene's running turn (if any) and waits for it to stop. */
  async cancel(sceneId: string): Promise<void> {
    const run = this.runs.get(sceneId);
    if (!run) return;
    run.abort.abort();
    await run.done.catch(() => {});
  }

  /** Runs a turn as the scene's only one: the one before is cancelled first; `signal` is aborted by a later turn. */
  async run<T>(sceneId: string, turn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    // Several callers may be waiting on the same predecessor: each cancels whatever runs when it gets its turn.
    while (this.runs.has(sceneId)) await this.cancel(sceneId);
    const abort = new AbortController();
    const done = turn(abort.signal);
    const entry = { abort, done };
    this.runs.set(sceneId, entry);
    try {
      return await done;
    } finally {
      if (this.runs.get(sceneId) === entry) this.runs.delete(sceneId);
    }
  }
}
