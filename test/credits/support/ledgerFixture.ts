import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock } from "../../../src/core/clock.ts";
import type { ServiceContext } from "../../../src/core/context.ts";
import { openDatabase } from "../../../src/db/openDatabase.ts";
import { createProject } from "../../../src/projects/projectService.ts";

export const C = 1_000_000; // microcredits per credit

/** A fresh database file and a ManualClock; `team(credits)` makes a team (with one project) on that plan. */
export function ledgerFixture(start = "2026-01-15T12:00:00.000Z") {
  const dir = mkdtempSync(join(tmpdir(), "lorehold-credits-"));
  const path = join(dir, "lorehold.db");
  const clock = new ManualClock(new Date(start));
  const ctx: ServiceContext = { db: openDatabase(path), clock };
  let n = 0;
  return {
    dir,
    path,
    clock,
    ctx,
    team(monthlyCredits: number): { teamId: string; projectId: string } {
      const p = createProject(ctx, { name: `p${++n}`, monthlyCredits });
      return { teamId: p.teamId, projectId: p.id };
    },
    /** SUM of the rows that make up the current balance: the API must agree with it to the microcredit. */
    rowsSum(teamId: string, period = clock.now().toISOString().slice(0, 7)): { allotment: number; topUp: number } {
      const q = (bucket: string, per: string) =>
        ctx.db
          .query<{ s: number }, [string, string, string]>(
            "SELECT COALESCE(SUM(amount_micro), 0) AS s FROM credit_ledger WHERE team_id = ? AND bucket = ? AND period = ?",
          )
          .get(teamId, bucket, per)!.s;
      return { allotment: q("allotment", period), topUp: q("topup", "topup") };
    },
    rows(teamId: string) {
      return ctx.db
        .query<{ bucket: string; kind: string; amount_micro: number; period: string; reservation_id: string | null; note: string | null }, [string]>(
          "SELECT bucket, kind, amount_micro, period, reservation_id, note FROM credit_ledger WHERE team_id = ? ORDER BY id",
        )
        .all(teamId);
    },
    close() {
      ctx.db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
