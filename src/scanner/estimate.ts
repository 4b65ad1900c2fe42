import type { Prices } from "../config/config.ts";
import type { ServiceContext } from "../core/context.ts";
import { getProjectBalance } from "../credits/ledger.ts";
import { microToCredits, scanCostMicro } from "../credits/prices.ts";
import { MINIMUM_BALANCE_MICRO, RESERVATION_MARGIN, SCANNER_LIMITS } from "./limits.ts";
import { completedHistory } from "./scanJobStore.ts";

export interface EstimateFile {
  filename: string;
  sizeBytes: number;
}

export interface ScanEstimate {
  estimatedMicro: number;
  reservedMicro: number;
  availableMicro: number;
  teamId: string;
  perFile: { filename: string; estimatedMicrocredits: number }[];
  estimateType: "rolling_average" | "minimum_balance";
  message: string;
}

/** Per extension: bytes processed and what they cost, summed over a job (scan_jobs.cost_by_extension). */
export type CostByExtension = Record<string, { bytes: number; micro: number }>;

export function extensionOf(name: string): string {
  const base = name.slice(name.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(dot).toLowerCase() : "";
}

/** "12.5", "0.000123": credits for a sentence (no float noise, no trailing zeros). */
export function creditsText(micro: number): string {
  return String(Number(microToCredits(micro).toFixed(6)));
}

interface History {
  jobs: number;
  bytes: number;
  micro: number;
  byExt: CostByExtension;
}

/** The project's latest completed jobs that scanned something: what a byte cost them. */
function history(ctx: ServiceContext, projectId: string): History {
  const rows = completedHistory(ctx.db, projectId, SCANNER_LIMITS.estimateHistoryJobs);
  const h: History = { jobs: rows.length, bytes: 0, micro: 0, byExt: {} };
  for (const r of rows) {
    h.bytes += r.bytes_processed;
    h.micro += r.actual_micro;
    for (const [ext, c] of Object.entries(JSON.parse(r.cost_by_extension) as CostByExtension)) {
      const e = (h.byExt[ext] ??= { bytes: 0, micro: 0 });
      e.bytes += c.bytes;
      e.micro += c.micro;
    }
  }
  return h;
}

/** An extension's own average counts once this many of its bytes were scanned; below, the job-wide average is used. */
const MIN_EXTENSION_BYTES = 4096;

/**
 * POST /scanner/estimate (also what submit-archive plans to reserve).
 *
 * - History (earlier COMPLETED jobs of the project, latest 20): a rolling
 *   average of the actual cost per byte, per extension where that extension
 *   has ≥ 4 KiB of history, else the all-extension average.
 *   Reservation = max(ceil(1.5 × estimate), estimate + 1).
 * - No history: the estimate is the list price (config prices.scanByte per
 *   byte) and the reservation is a minimum balance of
 *   max(1 credit, 2 × list price).
 *
 * Either way the reservation is larger than the estimate (spec). Model tokens
 * spent refining candidates are part of a job's actual cost, so the rolling
 * average includes them; they are never charged beyond the reservation.
 */
export function estimateScan(ctx: ServiceContext & { config: { prices: Prices } }, projectId: string, files: EstimateFile[]): ScanEstimate {
  const balance = getProjectBalance(ctx, projectId);
  const h = history(ctx, projectId);
  const totalBytes = files.reduce((s, f) => s + f.sizeBytes, 0);
  const n = files.length;
  const fileWord = n === 1 ? "file" : "files";
  let perFile: ScanEstimate["perFile"];
  let estimatedMicro: number;
  let reservedMicro: number;
  let estimateType: ScanEstimate["estimateType"];
  let message: string;
  if (h.jobs > 0) {
    const overall = h.micro / h.bytes;
    perFile = files.map((f) => {
      const e = h.byExt[extensionOf(f.filename)];
      const rate = e && e.bytes >= MIN_EXTENSION_BYTES ? e.micro / e.bytes : overall;
      return { filename: f.filename, estimatedMicrocredits: Math.ceil(f.sizeBytes * rate) };
    });
    estimatedMicro = perFile.reduce((s, f) => s + f.estimatedMicrocredits, 0);
    reservedMicro = Math.max(Math.ceil(estimatedMicro * RESERVATION_MARGIN), estimatedMicro + 1);
    estimateType = "rolling_average";
    message =
      `Estimated ${creditsText(estimatedMicro)} credits for ${n} ${fileWord} (${totalBytes} bytes), from the average cost of ` +
      `the last ${h.jobs} completed scan${h.jobs === 1 ? "" : "s"} of this project. ${creditsText(reservedMicro)} credits will be ` +
      `reserved at confirm; after processing the reservation is settled to the actual cost and the rest refunded.`;
  } else {
    perFile = files.map((f) => ({ filename: f.filename, estimatedMicrocredits: scanCostMicro(ctx.config.prices, f.sizeBytes) }));
    estimatedMicro = perFile.reduce((s, f) => s + f.estimatedMicrocredits, 0);
    reservedMicro = Math.max(MINIMUM_BALANCE_MICRO, 2 * estimatedMicro, estimatedMicro + 1);
    estimateType = "minimum_balance";
    message =
      `No earlier scans of this project to average: at list price ${n} ${fileWord} (${totalBytes} bytes) would cost ` +
      `${creditsText(estimatedMicro)} credits. A minimum balance of ${creditsText(reservedMicro)} credits is required and reserved ` +
      `at confirm; after processing the reservation is settled to the actual cost and the rest refunded.`;
  }
  const availableMicro = balance.available;
  message +=
    availableMicro >= reservedMicro
      ? ` The team has ${creditsText(availableMicro)} credits available.`
      : ` The team has only ${creditsText(availableMicro)} credits available: not enough for the reservation.`;
  return { estimatedMicro, reservedMicro, availableMicro, teamId: balance.teamId, perFile, estimateType, message };
}
