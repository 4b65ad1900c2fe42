import type { Db } from "../db/openDatabase.ts";
import type { Clock } from "./clock.ts";

/**
 * What a service needs, and nothing of HTTP: routes, the CLI, jobs and tests
 * all call services with one of these.
 */
export interface ServiceContext {
  db: Db;
  clock: Clock;
}

export function nowIso(ctx: { clock: Clock }): string {
  return ctx.clock.now().toISOString();
}
