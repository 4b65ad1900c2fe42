import { ApiError } from "../core/errors.ts";
import type { Prices } from "../config/config.ts";
import { release, settle } from "../credits/ledger.ts";
import { scanCostMicro } from "../credits/prices.ts";
import { creditsText } from "./estimate.ts";
import type { ScannerContext } from "../core/context.ts";
import type { ScanJobRow } from "./scanJobRow.ts";

/** Model tokens spent refining candidates, at the interaction prices. */
export function tokenCostMicro(prices: Prices, promptTokens: number, completionTokens: number): number {
  return Math.max(0, promptTokens) * prices.promptToken + Math.max(0, completionTokens) * prices.completionToken;
}

export interface Settlement {
  actualMicro: number;
  refundedMicro: number;
  message: string;
}

/** A reservation someone else already closed (an operator's sweep): it holds nothing any more. */
function alreadyClosed(e: unknown): boolean {
  return e instanceof ApiError && e.status === 409;
}

/**
 * Gives the whole reservation back (cancelled, expired or failed job). Run
 * inside the write transaction that ends the job.
 */
export function refundReservation(ctx: ScannerContext, job: Pick<ScanJobRow, "reservation_id" | "reserved_micro">): Settlement {
  if (!job.reservation_id) return { actualMicro: 0, refundedMicro: 0, message: "No credits were charged." };
  try {
    release(ctx, job.reservation_id);
  } catch (e) {
    if (!alreadyClosed(e)) throw e;
  }
  return {
    actualMicro: 0,
    refundedMicro: job.reserved_micro,
    message: `Nothing was charged: all ${creditsText(job.reserved_micro)} reserved credits were refunded.`,
  };
}

/**
 * Reconciles a processed job (spec rule 3): the actual cost is the bytes
 * scanned at prices.scanByte plus model tokens, never more than the
 * reservation; the hold is settled to it and the difference refunded. Run
 * inside the write transaction that ends the job.
 */
export function settleScan(
  ctx: ScannerContext,
  job: Pick<ScanJobRow, "reservation_id" | "reserved_micro">,
  usage: { bytes: number; tokenMicro: number; llmTokens: number },
): Settlement {
  const byteMicro = scanCostMicro(ctx.config.prices, usage.bytes);
  const actual = Math.min(job.reserved_micro, byteMicro + usage.tokenMicro);
  if (!job.reservation_id) return { actualMicro: 0, refundedMicro: 0, message: "No credits were reserved for this job." };
  if (actual === 0) return refundReservation(ctx, job);
  let charged: number;
  try {
    charged = settle(ctx, job.reservation_id, actual).charged;
  } catch (e) {
    if (!alreadyClosed(e)) throw e;
    return { actualMicro: 0, refundedMicro: job.reserved_micro, message: "The reservation had already been released: nothing was charged." };
  }
  const refunded = Math.max(0, job.reserved_micro - charged);
  const what = `${usage.bytes} bytes scanned${usage.llmTokens > 0 ? ` and ${usage.llmTokens} model tokens` : ""}`;
  const message =
    `Reserved ${creditsText(job.reserved_micro)} credits; the scan cost ${creditsText(charged)} credits (${what}). ` +
    (refunded > 0 ? `${creditsText(refunded)} credits were refunded.` : "Nothing was left to refund.");
  return { actualMicro: charged, refundedMicro: refunded, message };
}
