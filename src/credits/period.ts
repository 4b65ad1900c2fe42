import type { Clock } from "../core/clock.ts";

/** The ledger `period` of top-up rows: top-up credits never expire, so they all share one period. */
export const TOPUP_PERIOD = "topup";

/** The allotment period (UTC calendar month, "YYYY-MM") that `d` falls in. */
export function periodOf(d: Date): string {
  return d.toISOString().slice(0, 7);
}

export function currentPeriod(ctx: { clock: Clock }): string {
  return periodOf(ctx.clock.now());
}
