import type { Db } from "../db/openDatabase.ts";

/** scan_jobs: the scanner owns this table; every read and write of it lives here. */

/** Jobs per status (the /metrics gauge). */
export function countScanJobsByStatus(db: Db): Record<string, number> {
  const rows = db.query<{ status: string; n: number }, []>("SELECT status, COUNT(*) AS n FROM scan_jobs GROUP BY status").all();
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}
