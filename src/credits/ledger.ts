/**
 * The credit ledger's public API (DESIGN.md "Credits"). All amounts are
 * integer microcredits; every movement is a credit_ledger row and every
 * balance a SUM over rows:
 *
 * - bucket 'allotment', period "YYYY-MM": `allotment_grant` (+plan, once per
 *   team and month, lazily or by resetMonthlyAllotments), `plan_adjustment` (−).
 * - bucket 'topup', period 'topup': `topup_grant` (+), never expires.
 * - both buckets: `hold` (−) when reserving, `hold_release` (+) when the
 *   reservation closes, and spends (−) whose kind is the purpose / charge kind.
 */
export { getBalance, getProjectBalance, type Balance } from "./balance.ts";
export { reserve, type ReserveInput } from "./reserve.ts";
export { settle, release } from "./settle.ts";
export { charge, type ChargeInput } from "./charge.ts";
export { grantTopUp } from "./grantTopUp.ts";
export { setPlan } from "./setPlan.ts";
export { resetMonthlyAllotments } from "./resetMonthlyAllotments.ts";
export { spentMicro, type SpentFilter } from "./spentMicro.ts";
export { expireStaleReservations } from "./expireStaleReservations.ts";
export { periodOf, TOPUP_PERIOD } from "./period.ts";
