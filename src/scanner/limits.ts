/** The scanner's limits (spec "Limits", DESIGN.md "Scanner"). */
export const SCANNER_LIMITS = {
  /** totalSizeBytes and the upload body (spec: 200 MB). */
  maxArchiveBytes: 200 * 1024 * 1024,
  /** files in one manifest (DESIGN.md: up to 5,000). */
  maxFiles: 5_000,
  userContextChars: 5_000,
  relativePathChars: 1_024,
  filenameChars: 255,
  idempotencyKeyChars: 200,
  /** expiresIn of the signed upload URL (spec: 1800 s). */
  uploadUrlSeconds: 1_800,
  /** an unconfirmed job fails this long after creation (DESIGN.md: 45 minutes). */
  uploadWindowMs: 45 * 60_000,
  /** a confirmed job that has not completed by then fails with a full refund (spec: 24 hours). */
  confirmedExpiryMs: 24 * 60 * 60_000,
  /** GET /scanner/jobs */
  listedJobs: 50,
  /** a job that crashed the worker this many times is failed (refunded) instead of re-queued */
  maxAttempts: 3,
  /** skippedContent lists this many entries; the rest are summarised per reason */
  listedSkips: 2_000,
  /** completed jobs averaged by the rolling estimate */
  estimateHistoryJobs: 20,
} as const;

/** Reservation when there is history: the estimate plus this margin (the spec: reservation > estimate). */
export const RESERVATION_MARGIN = 1.5;
/** The minimum balance asked for with no history: at least this much, at least twice the list price. */
export const MINIMUM_BALANCE_MICRO = 1_000_000;

export type ScanStatus = "PENDING_UPLOAD" | "QUEUED" | "PROCESSING" | "COMPLETED" | "FAILED";
export const SCAN_STATUSES: readonly ScanStatus[] = ["PENDING_UPLOAD", "QUEUED", "PROCESSING", "COMPLETED", "FAILED"];
