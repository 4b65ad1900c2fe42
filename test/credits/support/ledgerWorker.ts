/**
 * A second process on the same database file, for the concurrency test:
 *   bun ledgerWorker.ts <dbPath> <clockIso> <goFile> <readyFile> reserve <teamId> <amount> <count>
 *   bun ledgerWorker.ts <dbPath> <clockIso> <goFile> <readyFile> settle <idsJsonFile> <actual>
 * Waits for <goFile> (a start barrier), then prints one JSON line of results.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { ManualClock } from "../../../src/core/clock.ts";
import { isApiError } from "../../../src/core/errors.ts";
import { getBalance, reserve, settle } from "../../../src/credits/ledger.ts";
import { openDatabase } from "../../../src/db/openDatabase.ts";

const [dbPath, clockIso, goFile, readyFile, mode, ...rest] = process.argv.slice(2);
const ctx = { db: openDatabase(dbPath), clock: new ManualClock(new Date(clockIso)) };
writeFileSync(readyFile, "ready");
while (!existsSync(goFile)) await Bun.sleep(2);

const out = { ok: [] as string[], refused: {} as Record<number, number>, other: [] as string[], negative: 0 };
function attempt(fn: () => string): void {
  try {
    out.ok.push(fn());
  } catch (e) {
    if (isApiError(e)) out.refused[e.status] = (out.refused[e.status] ?? 0) + 1;
    else out.other.push(String(e));
  }
}

if (mode === "reserve") {
  const [teamId, amount, count] = [rest[0], Number(rest[1]), Number(rest[2])];
  for (let i = 0; i < count; i++) {
    attempt(() => reserve(ctx, { teamId, amount, purpose: "interaction" }).reservationId);
    const b = getBalance(ctx, teamId);
    if (b.available < 0 || b.allotmentRemaining < 0 || b.topUp < 0) out.negative++;
  }
} else {
  const ids: string[] = JSON.parse(readFileSync(rest[0], "utf8"));
  for (const id of ids) attempt(() => (settle(ctx, id, Number(rest[1])), id));
}
ctx.db.close();
console.log(JSON.stringify(out));
