import type { Prices } from "../config/config.ts";
import { MICRO_PER_CREDIT } from "../projects/defaults.ts";

/** Microcredits → credits for the wire (`credits`, `creditsNeeded`, `estimatedCredits`): micro / 1e6, no rounding. */
export function microToCredits(micro: number): number {
  return micro / MICRO_PER_CREDIT;
}

/** Credits (CLI / config input) → integer microcredits, rounded to the nearest microcredit. */
export function creditsToMicro(credits: number): number {
  return Math.round(credits * MICRO_PER_CREDIT);
}

/** Cost of one interaction: prompt and generated tokens at the configured prices (DESIGN.md "Credits"). */
export function interactionCostMicro(prices: Prices, promptTokens: number, completionTokens: number): number {
  return count(promptTokens) * prices.promptToken + count(completionTokens) * prices.completionToken;
}

/** Cost of scanning `bytes` bytes of archive content. */
export function scanCostMicro(prices: Prices, bytes: number): number {
  return count(bytes) * prices.scanByte;
}

/** Token and byte counts are whole and never negative; a fractional estimate rounds up so a reservation is an upper bound. */
function count(n: number): number {
  return Number.isFinite(n) && n > 0 ? Math.ceil(n) : 0;
}
