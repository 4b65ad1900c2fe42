import type { ServiceContext } from "../core/context.ts";
import { SYSTEM_KINDS } from "./ledgerRows.ts";

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
  const where = [`kind NOT IN (${SYSTEM_KINDS.map(() => "?").join(", ")})`];
  const params: string[] = [...SYSTEM_KINDS];
  if (opts.teamId !== undefined) (where.push("team_id = ?"), params.push(opts.teamId));
  if (opts.projectId !== undefined) (where.push("project_id = ?"), params.push(opts.projectId));
  if (opts.since !== undefined) (where.push("created_at >= ?"), params.push(opts.since));
  const row = ctx.db
    .query<{ s: number }, string[]>(`SELECT COALESCE(SUM(amount_micro), 0) AS s FROM credit_ledger WHERE ${where.join(" AND ")}`)
    .get(...params)!;
  return 0 - row.s; // not -row.s: that is -0 when nothing was spent
}
