import type { Db } from "../db/openDatabase.ts";

/** credit_reservations: holds of the credit ledger (internal to src/credits). */

/** A credit_reservations row. */
export interface ReservationRow {
  id: string;
  team_id: string;
  project_id: string | null;
  purpose: string;
  allotment_micro: number;
  topup_micro: number;
  status: "open" | "settled" | "released";
  period: string;
  created_at: string;
  closed_at: string | null;
}

export function reservationById(db: Db, id: string): ReservationRow | null {
  return db.query<ReservationRow, [string]>("SELECT * FROM credit_reservations WHERE id = ?").get(id);
}

export function insertReservation(
  db: Db,
  r: { id: string; teamId: string; projectId: string | null; purpose: string; allotment: number; topUp: number; period: string; at: string },
): void {
  db.query(
    `INSERT INTO credit_reservations (id, team_id, project_id, purpose, allotment_micro, topup_micro, status, period, created_at)
     VALUES (?, ?, ?, ?, ?, ?, 'open', ?, ?)`,
  ).run(r.id, r.teamId, r.projectId, r.purpose, r.allotment, r.topUp, r.period, r.at);
}

export function markReservationClosed(db: Db, id: string, status: "settled" | "released", at: string): void {
  db.query("UPDATE credit_reservations SET status = ?, closed_at = ? WHERE id = ? AND status = 'open'").run(status, at, id);
}

/** Open reservations created before `cutoff` (optionally of one purpose), oldest first. */
export function openReservationsBefore(db: Db, cutoff: string, purpose: string | null): ReservationRow[] {
  return db
    .query<ReservationRow, [string, string | null, string | null]>(
      `SELECT * FROM credit_reservations WHERE status = 'open' AND created_at < ? AND (? IS NULL OR purpose = ?) ORDER BY created_at`,
    )
    .all(cutoff, purpose, purpose);
}

/** The allotment part of the team's open holds in a period. */
export function heldAllotment(db: Db, teamId: string, period: string): number {
  return db
    .query<{ s: number }, [string, string]>(
      "SELECT COALESCE(SUM(allotment_micro), 0) AS s FROM credit_reservations WHERE team_id = ? AND period = ? AND status = 'open'",
    )
    .get(teamId, period)!.s;
}
