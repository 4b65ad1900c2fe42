/**
 * Format-aware lore extraction for the scanner (DESIGN.md "Scanner"): pure functions, no I/O.
 * extractFile splits one file into sections (or says why not); classify matches the project's
 * tags and locations, scores confidence and merges duplicates across files.
 */
export type { Candidate, FileExtraction, ProjectVocabulary, ReviewInfo, ReviewKind, Section, Skipped } from "./types.ts";
export { planScan, skipGroupOf, skipKindReason, type ScanPlan, type SkipKind } from "./scanPlan.ts";
export { ALLOWED_EXTENSIONS, extractFile } from "./extractFile.ts";
export { classify } from "./classify.ts";
export { decodeText } from "./decodeText.ts";
