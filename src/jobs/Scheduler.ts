import { Cron } from "croner";
import type { Logger } from "../ops/logger.ts";

export interface JobDefinition {
  name: string;
  /** croner pattern; 6 fields for seconds, e.g. "*\/2 * * * * *" */
  schedule: string;
  /** also run once when the scheduler starts (catch-up after downtime) */
  runOnStart?: boolean;
  run(signal: AbortSignal): Promise<unknown>;
}

export interface JobStatus {
  name: string;
  schedule: string;
  running: boolean;
  runs: number;
  failures: number;
  lastRunAt: string | null;
  lastDurationMs: number | null;
  lastError: string | null;
  lastResult: unknown;
  nextRunAt: string | null;
}

interface JobState extends JobStatus {
  def: JobDefinition;
  cron: Cron | null;
  current: Promise<unknown> | null;
  /** kicked while running: run once more after this tick */
  again: boolean;
}

/**
 * Jobs are named plain functions registered here. A job never runs two ticks
 * at once (a tick that comes while one runs is skipped; a manual trigger
 * waits for the running one). stop() cancels timers, signals the running
 * ticks and waits for them to finish.
 */
export class Scheduler {
  private readonly jobs = new Map<string, JobState>();
  private readonly abort = new AbortController();
  private started = false;

  constructor(private readonly log: Logger) {}

  register(def: JobDefinition): void {
    if (this.jobs.has(def.name)) throw new Error(`job ${def.name} registered twice`);
    this.jobs.set(def.name, {
      def,
      cron: null,
      current: null,
      again: false,
      name: def.name,
      schedule: def.schedule,
      running: false,
      runs: 0,
      failures: 0,
      lastRunAt: null,
      lastDurationMs: null,
      lastError: null,
      lastResult: null,
      nextRunAt: null,
    });
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    for (const job of this.jobs.values()) {
      // Schedules are in UTC as a fixed offset: croner works a named timezone's every next run out through Intl
      // (~0.1 ms a run, half of an idle server's JS thread with its 2-second jobs), an offset by arithmetic.
      job.cron = new Cron(job.def.schedule, { protect: true, unref: true, utcOffset: 0 }, () => {
        if (!job.running) void this.tick(job);
      });
      if (job.def.runOnStart) void this.tick(job);
    }
  }

  /** Runs a job now (or joins the running tick) and returns its status after. */
  async trigger(name: string): Promise<JobStatus | null> {
    const job = this.jobs.get(name);
    if (!job) return null;
    if (job.current) await job.current.catch(() => {});
    else await this.tick(job);
    return this.snapshot(job);
  }

  /**
   * Work for a job was just added (a session waiting for its summary): run it soon, outside the caller's turn
   * so that no reply waits for it. A running tick may have looked for work before it was added, so a kick
   * while it runs runs the job once more after it. Only in a started scheduler (tests trigger jobs by hand).
   */
  kick(name: string): void {
    const job = this.jobs.get(name);
    if (!job || !this.started || this.abort.signal.aborted) return;
    job.again = true;
    setTimeout(() => {
      if (job.again && !job.current) void this.tick(job);
    }, 0);
  }

  list(): JobStatus[] {
    return [...this.jobs.values()].map((j) => this.snapshot(j));
  }

  private snapshot(j: JobState): JobStatus {
    const next = j.cron?.nextRun();
    return {
      name: j.name,
      schedule: j.schedule,
      running: j.running,
      runs: j.runs,
      failures: j.failures,
      lastRunAt: j.lastRunAt,
      lastDurationMs: j.lastDurationMs,
      lastError: j.lastError,
      lastResult: j.lastResult,
      nextRunAt: next ? next.toISOString() : null,
    };
  }

  private tick(job: JobState): Promise<unknown> {
    if (job.current) return job.current;
    if (this.abort.signal.aborted) return Promise.resolve();
    job.again = false;
    job.running = true;
    const t0 = performance.now();
    job.lastRunAt = new Date().toISOString();
    job.current = (async () => {
      try {
        job.lastResult = (await job.def.run(this.abort.signal)) ?? null;
        job.lastError = null;
      } catch (e) {
        job.failures++;
        job.lastError = e instanceof Error ? e.message : String(e);
        this.log.error("job failed", { job: job.name, err: e instanceof Error ? (e.stack ?? e.message) : String(e) });
      } finally {
        job.runs++;
        job.running = false;
        job.lastDurationMs = Math.round(performance.now() - t0);
        job.current = null;
        if (job.again) queueMicrotask(() => void this.tick(job));
      }
    })();
    return job.current;
  }

  /** Stops timers and waits (bounded) for running ticks. */
  async stop(timeoutMs = 30_000): Promise<void> {
    for (const j of this.jobs.values()) j.cron?.stop();
    this.abort.abort();
    const running = [...this.jobs.values()].map((j) => j.current).filter(Boolean) as Promise<unknown>[];
    if (running.length === 0) return;
    await Promise.race([Promise.allSettled(running), new Promise((r) => setTimeout(r, timeoutMs).unref?.())]);
  }
}
