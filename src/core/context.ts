import type { Config } from "../config/config.ts";
import type { Db } from "../db/openDatabase.ts";
import type { LlmEngine } from "../llm/LlmEngine.ts";
import type { GenerationBackend } from "../generation/types.ts";
import type { Logger } from "../ops/logger.ts";
import type { Metrics } from "../ops/metrics.ts";
import type { UsageLog } from "../ops/usageLog.ts";
import type { RateLimiter } from "../ratelimit/RateLimiter.ts";
import type { Scheduler } from "../jobs/Scheduler.ts";
import type { VectorStore } from "../vectors/VectorStore.ts";
import type { Clock } from "./clock.ts";

/**
 * The context types, in one place. The App builds one AppContext at boot;
 * services take the narrowest Pick of it they need, so routes, the CLI, jobs
 * and tests can all call them. Nothing here imports the App (no cycle).
 */

/** What every service needs, and nothing of HTTP. */
export interface ServiceContext {
  db: Db;
  clock: Clock;
}

/** What /healthz and /readyz say about generation. */
export interface ModelStatus {
  /** remote: generation = "remote", the pool is in /readyz `generation.backends` */
  state: "loaded" | "absent" | "failed" | "remote";
  path: string | null;
  error: string | null;
}

/** Everything a service may need, built once by the App. */
export interface AppContext extends ServiceContext {
  config: Config;
  log: Logger;
  vectors: VectorStore;
  /** null when no model is installed or it failed to load (interact answers 503) */
  llm: LlmEngine | null;
  /** what interact, memory summaries and scan refinement generate with: the local engine or the remote pool; null → 503 */
  generation: GenerationBackend | null;
  modelStatus: ModelStatus;
}

/** The interact path: the App's context plus the per-process limiter (and metrics when served). */
export interface InteractDeps extends AppContext {
  limiter: RateLimiter;
  metrics?: Metrics;
  /** token and latency samples of served interactions (the Studio's usage charts) */
  usage?: UsageLog;
  /** the background jobs: a memory checkpoint kicks the summary job */
  scheduler?: Pick<Scheduler, "kick">;
}

/** What scanner services need (the App's context satisfies it). */
export interface ScannerContext extends ServiceContext, Pick<AppContext, "llm" | "log">, Partial<Pick<AppContext, "generation">> {
  config: Pick<Config, "dataDir" | "publicUrl" | "prices">;
}

/** Memory services: rows in SQLite, vectors in LanceDB. */
export type MemoryContext = Pick<AppContext, "db" | "clock" | "vectors">;

export function nowIso(ctx: { clock: Clock }): string {
  return ctx.clock.now().toISOString();
}
