import { afterAll, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isApiError } from "../../src/core/errors.ts";
import { getBalance, grantTopUp, reserve, settle, spentMicro } from "../../src/credits/ledger.ts";
import { openDatabase } from "../../src/db/openDatabase.ts";
import { ledgerFixture } from "./support/ledgerFixture.ts";

const fx = ledgerFixture();
afterAll(() => fx.close());

const WORKER = join(import.meta.dir, "support", "ledgerWorker.ts");
const X = 1_000_003; // an odd amount, so any rounding or split error shows in the sums
const ALLOT_SLOTS = 30;
const TOPUP_SLOTS = 20; // 30 + 20 = exactly 50 reservations fit, straddling both buckets

type WorkerOut = { ok: string[]; refused: Record<string, number>; other: string[]; negative: number };

/** Starts `args.length` worker processes, holds them at a barrier until all have opened the database, then releases them together. */
async function runWorkers(tag: string, args: string[][], alsoHere: () => Promise<void>): Promise<WorkerOut[]> {
  const go = join(fx.dir, `go-${tag}`);
  const procs = args.map((a, i) => {
    const ready = join(fx.dir, `ready-${tag}-${i}`);
    const proc = Bun.spawn([process.execPath, WORKER, fx.path, fx.clock.now().toISOString(), go, ready, ...a], { stdout: "pipe", stderr: "pipe" });
    return { proc, ready };
  });
  // a Bun process starts in well under a second, but on cores shared with other suites it has taken over 30 s
  const deadline = Date.now() + 90_000;
  while (!procs.every((p) => existsSync(p.ready))) {
    if (Date.now() > deadline) throw new Error("workers did not start");
    await Bun.sleep(5);
  }
  writeFileSync(go, "go");
  await alsoHere();
  return Promise.all(
    procs.map(async ({ proc }) => {
      const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      if (code !== 0) throw new Error(`worker exited ${code}: ${stderr}`);
      return JSON.parse(stdout.trim().split("\n").at(-1)!) as WorkerOut;
    }),
  );
}

test("200 concurrent reservations over 3 processes and 2 connections: exactly 50 fit, nothing overdraws, rows reconcile", async () => {
  const { teamId } = fx.team((ALLOT_SLOTS * X) / 1_000_000);
  grantTopUp(fx.ctx, teamId, TOPUP_SLOTS * X);
  expect(getBalance(fx.ctx, teamId).available).toBe(50 * X);

  // In this process: 80 async attempts over two connections (the fixture's and a second one on the same file).
  const second = { db: openDatabase(fx.path), clock: fx.clock };
  const local = { ok: [] as string[], refused: 0, negative: 0 };
  const attemptHere = async (i: number) => {
    await Bun.sleep(i % 7); // spread the attempts across the workers' run
    const ctx = i % 2 ? second : fx.ctx;
    try {
      local.ok.push(reserve(ctx, { teamId, amount: X, purpose: "interaction" }).reservationId);
    } catch (e) {
      if (!isApiError(e) || e.status !== 402) throw e;
      local.refused++;
    }
    if (getBalance(ctx, teamId).available < 0) local.negative++;
  };
  // ...and 3 worker processes × 40 attempts = 120 more.
  const outs = await runWorkers(
    "reserve",
    [0, 1, 2].map(() => ["reserve", teamId, String(X), "40"]),
    async () => void (await Promise.all(Array.from({ length: 80 }, (_, i) => attemptHere(i)))),
  );

  const okIds = [...local.ok, ...outs.flatMap((o) => o.ok)];
  expect(outs.flatMap((o) => o.other)).toEqual([]);
  expect(okIds.length).toBe(50);
  expect(new Set(okIds).size).toBe(50);
  expect(local.refused + outs.reduce((n, o) => n + (o.refused["402"] ?? 0), 0)).toBe(150);
  expect(local.negative + outs.reduce((n, o) => n + o.negative, 0)).toBe(0);

  // The API, the ledger rows and the reservations agree to the microcredit.
  const b = getBalance(fx.ctx, teamId);
  expect(b).toEqual({ monthlyAllotment: ALLOT_SLOTS * X, allotmentRemaining: 0, topUp: 0, available: 0 });
  expect(fx.rowsSum(teamId)).toEqual({ allotment: 0, topUp: 0 });
  const held = fx.ctx.db
    .query("SELECT COUNT(*) AS n, SUM(allotment_micro) AS a, SUM(topup_micro) AS t FROM credit_reservations WHERE team_id = ? AND status = 'open'")
    .get(teamId);
  expect(held).toEqual({ n: 50, a: ALLOT_SLOTS * X, t: TOPUP_SLOTS * X });
  const holds = fx.ctx.db.query("SELECT SUM(amount_micro) AS s FROM credit_ledger WHERE team_id = ? AND kind = 'hold'").get(teamId);
  expect(holds).toEqual({ s: -50 * X });

  // Two processes race to settle the same 25 reservations (and this process the other 25): each is charged once.
  const actual = Math.floor(X / 3);
  const raced = okIds.slice(0, 25);
  const idsFile = join(fx.dir, "ids.json");
  writeFileSync(idsFile, JSON.stringify(raced));
  const settledHere: number[] = [];
  const settleOuts = await runWorkers("settle", [["settle", idsFile, String(actual)], ["settle", idsFile, String(actual)]], async () => {
    for (const id of okIds.slice(25)) settledHere.push(settle(second, id, actual).refunded);
  });
  expect(settleOuts.flatMap((o) => o.other)).toEqual([]);
  expect(settleOuts.reduce((n, o) => n + o.ok.length, 0)).toBe(25);
  expect(settleOuts.reduce((n, o) => n + (o.refused["409"] ?? 0), 0)).toBe(25);
  expect(settledHere.every((r) => r === X - actual)).toBe(true);

  const after = getBalance(fx.ctx, teamId);
  expect(after.available).toBe(50 * X - 50 * actual);
  const rows = fx.rowsSum(teamId);
  expect(after.allotmentRemaining).toBe(rows.allotment);
  expect(after.topUp).toBe(rows.topUp);
  expect(spentMicro(fx.ctx, { teamId })).toBe(50 * actual);
  expect(fx.ctx.db.query("SELECT COUNT(*) AS n FROM credit_reservations WHERE status = 'settled'").get()).toEqual({ n: 50 });
  second.db.close();
}, 180_000);
