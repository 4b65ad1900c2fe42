import type { Skipped } from "../extract/index.ts";
import type { StorableCandidate } from "./storableCandidate.ts";
import type { ExtractorSetup } from "./FileExtractor.ts";

/** Main thread → extraction thread: the setup once, then files in archive order, then the end. */
export type ToThread =
  | { type: "setup"; setup: ExtractorSetup }
  | { type: "file"; id: number; relativePath: string; bytes: Uint8Array }
  | { type: "end" };

/** Extraction thread → main thread: candidates as they are classified, each file's end, the archive's end, or a failure. */
export type FromThread =
  | { type: "batch"; candidates: StorableCandidate[]; skipped: Skipped[] }
  | { type: "done"; id: number }
  | { type: "ended" }
  | { type: "failed"; message: string; stack?: string };
