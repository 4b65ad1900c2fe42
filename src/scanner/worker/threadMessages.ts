import type { Skipped } from "../extract/index.ts";
import type { StorableCandidate } from "./storableCandidate.ts";
import type { ExtractorSetup } from "./FileExtractor.ts";

/**
 * Main thread → extraction thread: the setup once, then files in archive order, then the end; `close` (endThread.ts)
 * asks it to answer "closed" and be ended. `stop` is set (to 1) by the main thread once the scan no longer wants the
 * files it queued (a failure, a shutdown): the thread skips them, so a close behind them is answered soon.
 */
export type ToThread =
  | { type: "setup"; setup: ExtractorSetup; stop: Int32Array }
  | { type: "file"; id: number; relativePath: string; bytes: Uint8Array }
  | { type: "end" }
  | { type: "close" };

/** Extraction thread → main thread: candidates as they are classified, each file's end, the archive's end, or a failure. */
export type FromThread =
  | { type: "batch"; candidates: StorableCandidate[]; skipped: Skipped[] }
  | { type: "done"; id: number }
  | { type: "ended" }
  | { type: "failed"; message: string; stack?: string }
  | { type: "closed" };
