import type { ServiceContext } from "../core/context.ts";
import { spendSum } from "./ledgerRows.ts";

export interface SpentFilter {
  teamId?: string;
  projectId?: string;
  /** only spends recorded at or after this ISO-8601 instant (e.g. the start of a month) */
  since?: string;
}

/**
 * Microcredits actually spent (settled reservations and direct charges; open
 * holds are not spending), for /metrics and usage reports.
 */
export function spentMicro(ctx: ServiceContext, opts: SpentFilter = {}): number {
  return 0 - spendSum(ctx.db, opts); // not -sum: that is -0 when nothing was spent
}
