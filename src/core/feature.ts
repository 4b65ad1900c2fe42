import type { Elysia } from "elysia";
import type { JobDefinition, Scheduler } from "../jobs/Scheduler.ts";
import type { Metrics } from "../ops/metrics.ts";
import type { UsageLog } from "../ops/usageLog.ts";
import type { InteractDeps } from "./context.ts";

/** One mounted plugin: under /v1 (the spec's surface) or at the root (ops, admin). */
export interface HttpFeature {
  mount: "v1" | "root";
  plugin: Elysia<any, any, any, any, any, any, any>;
}

/** What a feature's routes and jobs are built from: the App's context plus its per-process parts. */
export interface FeatureDeps extends InteractDeps {
  metrics: Metrics;
  usage: UsageLog;
  scheduler: Scheduler;
  /** the whole HTTP app, in process (the Studio's /v1 pass-through) */
  handle(req: Request): Promise<Response>;
  readiness(): { ready: boolean } & Record<string, unknown>;
}

/**
 * A feature folder's one export: its HTTP routes and its background jobs.
 * App.ts lists the features in order; the whole HTTP surface and every job
 * are visible from that list.
 */
export interface Feature {
  name: string;
  routes?(deps: FeatureDeps): HttpFeature[];
  jobs?(deps: FeatureDeps): JobDefinition[];
}
