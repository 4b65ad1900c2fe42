import { newId } from "../core/ids.ts";
import type { Scheduler } from "./Scheduler.ts";

export interface JobRun {
  runId: string;
  job: string;
  state: "running" | "completed" | "failed";
  startedAt: string;
  finishedAt: string | null;
  /** the job's result (what it did), once completed */
  result: unknown;
  /** why it failed, once failed */
  error: string | null;
}

/** Finished runs kept for GET …/jobs/runs/{runId}; older ones are forgotten (404). */
const KEPT_RUNS = 200;

/**
 * Runs triggered over HTTP. A job can run for longer than a connection may stay silent (a scan of a
 * large archive: minutes), so the trigger answers at once with a run id and the run is polled — a
 * request that waited for the job would be cut by the idle timeout with nothing sent.
 */
export class JobRuns {
  private readonly runs = new Map<string, JobRun>();

  constructor(private readonly scheduler: Scheduler) {}

  /** Starts `name` now (or joins its running tick); null when there is no such job. */
  start(name: string): JobRun | null {
    if (!this.scheduler.list().some((j) => j.name === name)) return null;
    const run: JobRun = { runId: newId("run"), job: name, state: "running", startedAt: new Date().toISOString(), finishedAt: null, result: null, error: null };
    this.runs.set(run.runId, run);
    void this.scheduler.trigger(name).then(
      (status) => {
        run.finishedAt = new Date().toISOString();
        if (status?.lastError) Object.assign(run, { state: "failed", error: status.lastError });
        else Object.assign(run, { state: "completed", result: status?.lastResult ?? null });
        this.forgetOld();
      },
      (e: unknown) => Object.assign(run, { state: "failed", error: e instanceof Error ? e.message : String(e), finishedAt: new Date().toISOString() }),
    );
    return { ...run };
  }

  get(runId: string): JobRun | null {
    const run = this.runs.get(runId);
    return run ? { ...run } : null;
  }

  private forgetOld(): void {
    for (const [id, run] of this.runs) {
      if (this.runs.size <= KEPT_RUNS) return;
      if (run.state !== "running") this.runs.delete(id);
    }
  }
}
