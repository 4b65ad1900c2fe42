import { notFound } from "../core/errors.ts";
import { nowIso, type ServiceContext } from "../core/context.ts";
import type { Db } from "../db/openDatabase.ts";
import { writeTx } from "../db/openDatabase.ts";
import { TOPUP_PERIOD } from "./period.ts";

/**
 * Row-level helpers of the credit ledger (internal to src/credits). Every
 * movement is an INSERT into credit_ledger; a balance is a SUM over rows.
 */
export type Bucket = "allotment" | "topup";

/** Ledger kinds the ledger itself writes; every other kind is a spend (a settled purpose or a charge's kind). */
export const KIND = {
  grant: "allotment_grant",
  topUp: "topup_grant",
  planAdjustment: "plan_adjustment",
  hold: "hold",
  holdRelease: "hold_release",
} as const;

export const SYSTEM_KINDS: readonly string[] = Object.values(KIND);

export interface LedgerRow {
  teamId: string;
  projectId?: string | null;
  bucket: Bucket;
  kind: string;
  amount: number;
  /** "YYYY-MM" for the allotment bucket; ignored (TOPUP_PERIOD) for top-up */
  period: string;
  reservationId?: string | null;
  note?: string | null;
}

export function insertLedgerRow(ctx: ServiceContext, row: LedgerRow): void {
  if (row.amount === 0) return;
  ctx.db
    .query(
      `INSERT INTO credit_ledger (team_id, project_id, bucket, kind, amount_micro, period, reservation_id, note, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      row.teamId,
      row.projectId ?? null,
      row.bucket,
      row.kind,
      row.amount,
      row.bucket === "topup" ? TOPUP_PERIOD : row.period,
      row.reservationId ?? null,
      row.note ?? null,
      nowIso(ctx),
    );
}

/** The team's plan (monthly allotment in micro); 404 `Team not found` when there is no such team. */
export function teamPlan(db: Db, teamId: string): number {
  const row = db.query<{ m: number }, [string]>("SELECT monthly_allotment_micro AS m FROM teams WHERE id = ?").get(teamId);
  if (!row) throw notFound("Team");
  return row.m;
}

/** Remaining allotment of `period` and the top-up balance, open holds already subtracted. */
export function bucketSums(db: Db, teamId: string, period: string): { allotment: number; topUp: number } {
  const allotment = db
    .query<{ s: number }, [string, string]>(
      "SELECT COALESCE(SUM(amount_micro), 0) AS s FROM credit_ledger WHERE team_id = ? AND bucket = 'allotment' AND period = ?",
    )
    .get(teamId, period)!.s;
  const topUp = db
    .query<{ s: number }, [string, string]>(
      "SELECT COALESCE(SUM(amount_micro), 0) AS s FROM credit_ledger WHERE team_id = ? AND bucket = 'topup' AND period = ?",
    )
    .get(teamId, TOPUP_PERIOD)!.s;
  return { allotment, topUp };
}

export function hasGrant(db: Db, teamId: string, period: string): boolean {
  return (
    db
      .query("SELECT 1 FROM credit_ledger WHERE team_id = ? AND bucket = 'allotment' AND period = ? AND kind = 'allotment_grant' LIMIT 1")
      .get(teamId, period) !== null
  );
}

/**
 * Grants `period`'s allotment unless it already is. The check and the insert
 * run in one IMMEDIATE transaction (a savepoint when the caller holds one), so
 * two connections granting at once still grant once.
 */
export function ensureAllotmentGrant(ctx: ServiceContext, teamId: string, period: string): boolean {
  if (hasGrant(ctx.db, teamId, period)) return false; // fast path: grants are never removed
  return writeTx(ctx.db, () => {
    if (hasGrant(ctx.db, teamId, period)) return false;
    const plan = teamPlan(ctx.db, teamId);
    // A zero plan still gets a (zero) marker row so the job counts it as granted; insertLedgerRow skips zero amounts.
    ctx.db
      .query(
        `INSERT INTO credit_ledger (team_id, project_id, bucket, kind, amount_micro, period, reservation_id, note, created_at)
         VALUES (?, NULL, 'allotment', 'allotment_grant', ?, ?, NULL, NULL, ?)`,
      )
      .run(teamId, plan, period, nowIso(ctx));
    return true;
  });
}

/** Splits `amount` allotment-first: what the allotment covers, the rest from top-up. */
export function splitAllotmentFirst(amount: number, allotmentAvailable: number): { allotment: number; topUp: number } {
  const allotment = Math.min(amount, Math.max(0, allotmentAvailable));
  return { allotment, topUp: amount - allotment };
}

/** Amounts are integer microcredits. */
export function isMicro(n: unknown, min = 0): n is number {
  return typeof n === "number" && Number.isSafeInteger(n) && n >= min;
}

/** The sum of spend rows (negative; every kind but the ledger's own), filtered. */
export function spendSum(db: Db, opts: { teamId?: string; projectId?: string; since?: string }): number {
  const where = [`kind NOT IN (${SYSTEM_KINDS.map(() => "?").join(", ")})`];
  const params: string[] = [...SYSTEM_KINDS];
  if (opts.teamId !== undefined) (where.push("team_id = ?"), params.push(opts.teamId));
  if (opts.projectId !== undefined) (where.push("project_id = ?"), params.push(opts.projectId));
  if (opts.since !== undefined) (where.push("created_at >= ?"), params.push(opts.since));
  return db.query<{ s: number }, string[]>(`SELECT COALESCE(SUM(amount_micro), 0) AS s FROM credit_ledger WHERE ${where.join(" AND ")}`).get(...params)!.s;
}

/** Teams without the period's allotment grant. */
export function teamsWithoutGrant(db: Db, period: string): { id: string }[] {
  return db
    .query<{ id: string }, [string]>(
      `SELECT id FROM teams WHERE id NOT IN
         (SELECT team_id FROM credit_ledger WHERE bucket = 'allotment' AND period = ? AND kind = 'allotment_grant')`,
    )
    .all(period);
}

export function setTeamPlan(db: Db, teamId: string, monthlyMicro: number, at: string): void {
  db.query("UPDATE teams SET monthly_allotment_micro = ?, updated_at = ? WHERE id = ?").run(monthlyMicro, at, teamId);
}
