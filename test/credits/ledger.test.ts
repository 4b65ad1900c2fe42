import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { ApiError } from "../../src/core/errors.ts";
import {
  charge,
  expireStaleReservations,
  getBalance,
  getProjectBalance,
  grantTopUp,
  release,
  reserve,
  resetMonthlyAllotments,
  setPlan,
  settle,
  spentMicro,
} from "../../src/credits/ledger.ts";
import { C, ledgerFixture } from "./support/ledgerFixture.ts";

let fx: ReturnType<typeof ledgerFixture>;
beforeEach(() => {
  fx = ledgerFixture();
});
afterEach(() => fx.close());

function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error("expected an ApiError");
}

/** The API's balance must equal the SUM of ledger rows, to the microcredit. */
function expectReconciled(teamId: string) {
  const b = getBalance(fx.ctx, teamId);
  const rows = fx.rowsSum(teamId);
  expect(b.allotmentRemaining).toBe(rows.allotment);
  expect(b.topUp).toBe(rows.topUp);
  expect(b.available).toBe(rows.allotment + rows.topUp);
  expect(b.allotmentRemaining).toBeGreaterThanOrEqual(0);
  expect(b.topUp).toBeGreaterThanOrEqual(0);
  return b;
}

describe("balance", () => {
  test("the month's allotment is granted lazily, once, on first use", () => {
    const { teamId, projectId } = fx.team(100);
    expect(fx.rows(teamId)).toEqual([]);
    expect(getBalance(fx.ctx, teamId)).toEqual({ monthlyAllotment: 100 * C, allotmentRemaining: 100 * C, topUp: 0, available: 100 * C });
    getBalance(fx.ctx, teamId);
    expect(getProjectBalance(fx.ctx, projectId)).toEqual({ ...getBalance(fx.ctx, teamId), teamId });
    expect(fx.rows(teamId)).toEqual([
      { bucket: "allotment", kind: "allotment_grant", amount_micro: 100 * C, period: "2026-01", reservation_id: null, note: null },
    ]);
  });

  test("unknown team or project is 404", () => {
    expect(apiError(() => getBalance(fx.ctx, "team_nope")).toBody()).toEqual({ error: "Team not found" });
    expect(apiError(() => getProjectBalance(fx.ctx, "proj_nope")).status).toBe(404);
  });
});

describe("spending order", () => {
  test("allotment first, then top-up", () => {
    const { teamId } = fx.team(10);
    expect(grantTopUp(fx.ctx, teamId, 5 * C, "gift")).toMatchObject({ allotmentRemaining: 10 * C, topUp: 5 * C, available: 15 * C });
    charge(fx.ctx, { teamId, amount: 8 * C, kind: "mind_build" });
    expect(getBalance(fx.ctx, teamId)).toMatchObject({ allotmentRemaining: 2 * C, topUp: 5 * C });
    // A reservation straddling both buckets holds 2 from the allotment and 2 from top-up.
    const r = reserve(fx.ctx, { teamId, amount: 4 * C, purpose: "interaction" });
    expect(getBalance(fx.ctx, teamId)).toMatchObject({ allotmentRemaining: 0, topUp: 3 * C, available: 3 * C });
    const res = fx.ctx.db.query("SELECT allotment_micro, topup_micro, status FROM credit_reservations WHERE id = ?").get(r.reservationId);
    expect(res).toEqual({ allotment_micro: 2 * C, topup_micro: 2 * C, status: "open" });
    expect(settle(fx.ctx, r.reservationId, 4 * C)).toEqual({ charged: 4 * C, refunded: 0 });
    expect(expectReconciled(teamId)).toMatchObject({ allotmentRemaining: 0, topUp: 3 * C });
    const spends = fx.rows(teamId).filter((row) => row.kind === "interaction");
    expect(spends.map((s) => [s.bucket, s.amount_micro])).toEqual([["allotment", -2 * C], ["topup", -2 * C]]);
    expect(spentMicro(fx.ctx, { teamId })).toBe(12 * C);
  });

  test("402 body is exactly {error, message, creditsNeeded, credits} (credits, not micro)", () => {
    const { teamId, projectId } = fx.team(1);
    const e = apiError(() => reserve(fx.ctx, { teamId, projectId, amount: 1_500_000, purpose: "interaction" }));
    expect(e.status).toBe(402);
    expect(e.toBody()).toEqual({ error: "Insufficient credits", message: expect.any(String), creditsNeeded: 1.5, credits: 1 });
    expect(Object.keys(e.toBody()).sort()).toEqual(["credits", "creditsNeeded", "error", "message"]);
    const e2 = apiError(() => charge(fx.ctx, { teamId, amount: 1_000_001, kind: "mind_build" }));
    expect(e2.toBody()).toEqual({ error: "Insufficient credits", message: expect.any(String), creditsNeeded: 1.000001, credits: 1 });
    // The refused attempts wrote nothing (their transaction rolled back whole).
    expect(fx.rows(teamId).filter((r) => r.kind !== "allotment_grant")).toEqual([]);
    expect(fx.ctx.db.query("SELECT COUNT(*) AS n FROM credit_reservations").get()).toEqual({ n: 0 });
    // Exactly the balance fits.
    reserve(fx.ctx, { teamId, amount: C, purpose: "interaction" });
    expect(expectReconciled(teamId).available).toBe(0);
  });

  test("bad input is 400; a project of another team is refused", () => {
    const { teamId } = fx.team(1);
    const other = fx.team(1);
    expect(apiError(() => reserve(fx.ctx, { teamId, amount: -1, purpose: "x" })).status).toBe(400);
    expect(apiError(() => reserve(fx.ctx, { teamId, amount: 1.5, purpose: "x" })).status).toBe(400);
    expect(apiError(() => reserve(fx.ctx, { teamId, amount: 1, purpose: "hold" })).status).toBe(400);
    expect(apiError(() => charge(fx.ctx, { teamId, amount: 1, kind: "" })).status).toBe(400);
    expect(apiError(() => charge(fx.ctx, { teamId, projectId: other.projectId, amount: 1, kind: "x" })).status).toBe(400);
    expect(apiError(() => grantTopUp(fx.ctx, teamId, 0)).status).toBe(400);
    expect(apiError(() => setPlan(fx.ctx, teamId, -5)).status).toBe(400);
  });
});

describe("reservations", () => {
  test("settling for less than reserved refunds the rest; a second settle is 409", () => {
    const { teamId, projectId } = fx.team(10);
    const r = reserve(fx.ctx, { teamId, projectId, amount: 6 * C, purpose: "interaction" });
    expect(r.amount).toBe(6 * C);
    expect(getBalance(fx.ctx, teamId).available).toBe(4 * C);
    expect(settle(fx.ctx, r.reservationId, 2_500_000)).toEqual({ charged: 2_500_000, refunded: 3_500_000 });
    expect(expectReconciled(teamId).available).toBe(7_500_000);
    const again = apiError(() => settle(fx.ctx, r.reservationId, 1));
    expect(again.status).toBe(409);
    expect(again.extra.currentStatus).toBe("settled");
    expect(apiError(() => release(fx.ctx, r.reservationId)).status).toBe(409);
    expect(apiError(() => settle(fx.ctx, "res_nope", 1)).status).toBe(404);
    expect(getBalance(fx.ctx, teamId).available).toBe(7_500_000);
    expect(spentMicro(fx.ctx, { projectId })).toBe(2_500_000);
  });

  test("release gives the whole hold back", () => {
    const { teamId } = fx.team(10);
    grantTopUp(fx.ctx, teamId, 3 * C);
    const r = reserve(fx.ctx, { teamId, amount: 12 * C, purpose: "scan" });
    expect(getBalance(fx.ctx, teamId)).toMatchObject({ allotmentRemaining: 0, topUp: C });
    release(fx.ctx, r.reservationId);
    expect(expectReconciled(teamId)).toMatchObject({ allotmentRemaining: 10 * C, topUp: 3 * C, available: 13 * C });
    expect(fx.ctx.db.query("SELECT status FROM credit_reservations WHERE id = ?").get(r.reservationId)).toEqual({ status: "released" });
    expect(spentMicro(fx.ctx, { teamId })).toBe(0);
    expect(apiError(() => settle(fx.ctx, r.reservationId, 0)).status).toBe(409);
  });

  test("settling for more than reserved charges only what the balance holds, never below zero", () => {
    const { teamId } = fx.team(10);
    const a = reserve(fx.ctx, { teamId, amount: 6 * C, purpose: "scan" });
    expect(settle(fx.ctx, a.reservationId, 7 * C)).toEqual({ charged: 7 * C, refunded: 0 }); // 4 were free: overrun fits
    const b = reserve(fx.ctx, { teamId, amount: 2 * C, purpose: "scan" });
    charge(fx.ctx, { teamId, amount: C, kind: "mind_build" });
    expect(settle(fx.ctx, b.reservationId, 5 * C)).toEqual({ charged: 2 * C, refunded: 0 });
    expect(expectReconciled(teamId).available).toBe(0);
    expect(fx.rows(teamId).at(-1)?.note).toContain("3000000 microcredits");
  });

  test("a reservation that outlives the month settles in its own month", () => {
    fx.clock.set("2026-01-31T23:59:30.000Z");
    const { teamId } = fx.team(10);
    grantTopUp(fx.ctx, teamId, 5 * C);
    const r = reserve(fx.ctx, { teamId, amount: 8 * C, purpose: "scan" });
    fx.clock.set("2026-02-01T00:00:30.000Z");
    // February: a fresh allotment, untouched by January's hold.
    expect(getBalance(fx.ctx, teamId)).toMatchObject({ allotmentRemaining: 10 * C, topUp: 5 * C });
    expect(settle(fx.ctx, r.reservationId, 3 * C)).toEqual({ charged: 3 * C, refunded: 5 * C });
    // The charge and refund went to January's allotment (which has expired): February and top-up are unchanged.
    expect(expectReconciled(teamId)).toMatchObject({ allotmentRemaining: 10 * C, topUp: 5 * C });
    expect(fx.rowsSum(teamId, "2026-01").allotment).toBe(7 * C);
    expect(spentMicro(fx.ctx, { teamId })).toBe(3 * C);
  });

  test("expireStaleReservations releases only reservations older than the cutoff", () => {
    const { teamId } = fx.team(10);
    const old = reserve(fx.ctx, { teamId, amount: 4 * C, purpose: "scan" });
    fx.clock.advance(10 * 60_000);
    const fresh = reserve(fx.ctx, { teamId, amount: 3 * C, purpose: "interaction" });
    fx.clock.advance(60_000);
    expect(expireStaleReservations(fx.ctx, 5 * 60_000)).toBe(1);
    expect(expireStaleReservations(fx.ctx, 5 * 60_000)).toBe(0);
    expect(expectReconciled(teamId).available).toBe(7 * C);
    expect(apiError(() => settle(fx.ctx, old.reservationId, C)).extra.currentStatus).toBe("released");
    expect(settle(fx.ctx, fresh.reservationId, C)).toEqual({ charged: C, refunded: 2 * C });
    expect(expectReconciled(teamId).available).toBe(9 * C);
  });

  test("expireStaleReservations can be limited to one purpose", () => {
    const { teamId } = fx.team(10);
    const scan = reserve(fx.ctx, { teamId, amount: 4 * C, purpose: "scan" });
    reserve(fx.ctx, { teamId, amount: 3 * C, purpose: "interaction" });
    fx.clock.advance(60 * 60_000);
    expect(expireStaleReservations(fx.ctx, 15 * 60_000, { purpose: "interaction" })).toBe(1);
    expect(getBalance(fx.ctx, teamId).available).toBe(6 * C); // the scan's hold stands
    expect(settle(fx.ctx, scan.reservationId, C)).toEqual({ charged: C, refunded: 3 * C });
  });
});

describe("plans and the monthly reset", () => {
  test("the job grants each team once a month; leftovers do not carry over; top-up does", () => {
    fx.clock.set("2026-01-31T23:59:00.000Z");
    const a = fx.team(10);
    const b = fx.team(20);
    grantTopUp(fx.ctx, a.teamId, 2 * C);
    charge(fx.ctx, { teamId: a.teamId, amount: 3 * C, kind: "mind_build" }); // January: 7 left over
    expect(resetMonthlyAllotments(fx.ctx)).toEqual({ granted: 1 }); // b had no January grant yet; a had one lazily
    expect(resetMonthlyAllotments(fx.ctx)).toEqual({ granted: 0 });

    fx.clock.set("2026-02-01T00:00:00.000Z");
    expect(resetMonthlyAllotments(fx.ctx)).toEqual({ granted: 2 });
    expect(resetMonthlyAllotments(fx.ctx)).toEqual({ granted: 0 });
    expect(expectReconciled(a.teamId)).toEqual({ monthlyAllotment: 10 * C, allotmentRemaining: 10 * C, topUp: 2 * C, available: 12 * C });
    expect(getBalance(fx.ctx, b.teamId).allotmentRemaining).toBe(20 * C);
    const grants = fx.ctx.db
      .query("SELECT team_id, period, COUNT(*) AS n FROM credit_ledger WHERE kind = 'allotment_grant' GROUP BY team_id, period")
      .all() as Array<{ n: number }>;
    expect(grants.length).toBe(4);
    expect(grants.every((g) => g.n === 1)).toBe(true);

    // A lazy grant in March counts: the job then has nothing to grant for that team.
    fx.clock.set("2026-03-02T08:00:00.000Z");
    getBalance(fx.ctx, a.teamId);
    expect(resetMonthlyAllotments(fx.ctx)).toEqual({ granted: 1 });
  });

  test("setPlan: this month's remaining becomes min(remaining, new); next month gets the new plan", () => {
    const { teamId } = fx.team(100);
    charge(fx.ctx, { teamId, amount: 30 * C, kind: "mind_build" });
    expect(setPlan(fx.ctx, teamId, 50 * C)).toMatchObject({ monthlyAllotment: 50 * C, allotmentRemaining: 50 * C });
    expect(fx.rows(teamId).at(-1)).toMatchObject({ kind: "plan_adjustment", amount_micro: -20 * C, period: "2026-01" });
    expect(setPlan(fx.ctx, teamId, 80 * C)).toMatchObject({ monthlyAllotment: 80 * C, allotmentRemaining: 50 * C });
    expect(setPlan(fx.ctx, teamId, 10 * C)).toMatchObject({ monthlyAllotment: 10 * C, allotmentRemaining: 10 * C });
    expectReconciled(teamId);
    expect(spentMicro(fx.ctx, { teamId })).toBe(30 * C); // adjustments are not spending
    fx.clock.set("2026-02-01T00:00:00.000Z");
    expect(getBalance(fx.ctx, teamId)).toMatchObject({ monthlyAllotment: 10 * C, allotmentRemaining: 10 * C });
  });

  test("setPlan before the month's first use: min(old plan, new)", () => {
    const down = fx.team(100);
    expect(setPlan(fx.ctx, down.teamId, 40 * C)).toMatchObject({ monthlyAllotment: 40 * C, allotmentRemaining: 40 * C });
    const up = fx.team(100);
    expect(setPlan(fx.ctx, up.teamId, 400 * C)).toMatchObject({ monthlyAllotment: 400 * C, allotmentRemaining: 100 * C });
  });

  test("setPlan with an open hold: after the hold closes the month ends at the new plan", () => {
    const { teamId } = fx.team(100);
    const r = reserve(fx.ctx, { teamId, amount: 40 * C, purpose: "scan" });
    expect(setPlan(fx.ctx, teamId, 50 * C)).toMatchObject({ allotmentRemaining: 10 * C });
    release(fx.ctx, r.reservationId);
    expect(expectReconciled(teamId).allotmentRemaining).toBe(50 * C);
  });
});
