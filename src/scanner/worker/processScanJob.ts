import { ArchiveError, readArchive, type RejectedFile } from "../archive/index.ts";
import { normalizeEntryName } from "../archive/entryName.ts";
import { type Candidate, classify, decodeText, extractFile, planScan, type ProjectVocabulary } from "../extract/index.ts";
import type { ExtractOptions } from "../extract/extractFile.ts";
import { StringTableJoin } from "./StringTableJoin.ts";
import { baseName } from "../extract/text.ts";
import { nowIso } from "../../core/context.ts";
import { writeTx } from "../../db/openDatabase.ts";
import { scanCostMicro } from "../../credits/prices.ts";
import { extensionOf, type CostByExtension } from "../estimate.ts";
import { SCANNER_LIMITS } from "../limits.ts";
import type { ScannerContext } from "../../core/context.ts";
import { parseManifest, type ScanJobRow } from "../scanJobRow.ts";
import { refundReservation, settleScan } from "../settlement.ts";
import { deleteUpload, hasUpload, uploadPath } from "../uploadStore.ts";
import { ExtractionStore } from "./ExtractionStore.ts";
import { progressWriter, stillProcessing, transition } from "../scanJobStore.ts";
import { clearExtractions } from "../scanExtractionStore.ts";
import { tagNamesDefaultsFirst } from "../../lore/tags/tagStore.ts";
import { locationNamesByCreation } from "../../lore/locations/locationStore.ts";
import { refineWithModel } from "./refineWithModel.ts";
import { SkipList } from "./SkipList.ts";
import { SkipTally } from "./SkipTally.ts";
import { forEachTextPiece } from "./entryPieces.ts";

const GC_EVERY_BYTES = 8 * 1024 * 1024;
/**
 * Issue 12 (speed): candidates and progress are committed together at most this often (and when
 * CLASSIFY_SLICE candidates wait), not once per file: a commit per file of a 1,700-file archive was a
 * fifth of the scan. The first file commits at once, so a poller sees the job move from the start.
 */
const COMMIT_EVERY_MS = 50;
/** Sections classified (and candidates stored) per slice of one file. */
const CLASSIFY_SLICE = 2_000;

/** The job left PROCESSING under the worker's feet (the 24 h sweep failed it): stop quietly. */
class JobGone extends Error {}

export const ALL_FILES_FAILED = "No file of the archive could be processed: every file was rejected or missing (see skippedContent).";
export const MISSING_FROM_ARCHIVE = "Listed in the manifest but not found in the archive";

export type ProcessOutcome = "COMPLETED" | "FAILED" | "requeued" | "gone" | "not-claimed";

/** The project's tag names (defaults first, then by creation) and location names, as the heuristics match them. */
export function projectVocabulary(ctx: ScannerContext, projectId: string): ProjectVocabulary {
  return { tags: tagNamesDefaultsFirst(ctx.db, projectId), locations: locationNamesByCreation(ctx.db, projectId) };
}

/** QUEUED → PROCESSING (startedAt, attempts + 1), wiping what an interrupted attempt left. null when not claimable. */
function claim(ctx: ScannerContext, jobId: string): ScanJobRow | null {
  return writeTx(ctx.db, () => {
    const job = transition(ctx.db, jobId, {
      from: "QUEUED",
      to: "PROCESSING",
      set: { started_at: nowIso(ctx), completed_files: 0, failed_files: 0, bytes_processed: 0, llm_tokens: 0, skipped: "[]", error_message: null },
      attemptsDelta: 1,
    });
    if (job) clearExtractions(ctx.db, jobId);
    return job;
  });
}

/**
 * Runs one QUEUED job to its end (DESIGN.md "Scanner"): reads the archive
 * entry by entry against the manifest, extracts and classifies each accepted
 * file, merges candidates into the job's extractions, commits them with the
 * progress after the first file and then every COMMIT_EVERY_MS (pollers see
 * completedFiles/failedFiles move), optionally refines
 * with the model, then settles the reservation and ends COMPLETED — or FAILED
 * when no file could be processed or the archive is unreadable (refunded).
 *
 * Shutdown (abort) puts the job back in the queue; an unexpected error does
 * too until the job has had SCANNER_LIMITS.maxAttempts attempts, then it fails
 * with a full refund.
 */
export async function processScanJob(ctx: ScannerContext, jobId: string, signal?: AbortSignal): Promise<ProcessOutcome> {
  const job = claim(ctx, jobId);
  if (!job) return "not-claimed";
  const attempt = job.attempts;
  const manifest = parseManifest(job);
  const vocab = projectVocabulary(ctx, job.project_id);
  const tagOrder = new Map(vocab.tags.map((t, i) => [t, i]));
  const store = new ExtractionStore(ctx.db, job.id, tagOrder);
  const skipped = new SkipList(SCANNER_LIMITS.listedSkips);
  const plan = planScan(manifest.map((f) => f.relativePath), job.user_context);
  const tally = new SkipTally();
  const listed = new Map(manifest.map((f) => [normalizeEntryName(f.relativePath), f]));
  const counted = new Set<string>();
  const costByExt: CostByExtension = {};
  let completed = 0;
  let failed = 0;
  let bytes = 0;
  let collectedAt = 0;

  const progress = progressWriter(ctx.db, job.id, attempt);
  const writeProgress = () => {
    if (!progress({ completed, failed, bytes })) throw new JobGone();
  };

  let committedAt = 0;
  const commit = (now = performance.now()) => {
    writeTx(ctx.db, () => {
      storePending();
      writeProgress();
    });
    committedAt = now;
  };

  const tables = new StringTableJoin(manifest.map((f) => f.relativePath));
  const extractOpts: ExtractOptions = {
    hasInkSource: plan.hasInkSource,
    hasTweeSource: plan.hasTweeSource,
    includeMechanics: plan.includeMechanics,
    stringTableKeys: (c) => tables.keysOf(c),
  };
  // Candidates wait here until the file's transaction; a file with thousands of sections (an 8 MB
  // dialogue database) is classified and stored a slice at a time, so they are never all in memory.
  let pending: Candidate[] = [];
  const storePending = () => {
    const batch = pending;
    pending = [];
    for (const c of batch) store.add(c);
  };
  const extractOne = (relativePath: string, content: string): void => {
    const extraction = extractFile(relativePath, content, extractOpts);
    const variants = plan.variantsOf(relativePath);
    for (const s of extraction.skipped) skipped.add(s);
    const sections = extraction.sections;
    for (let i = 0; i < sections.length; i += CLASSIFY_SLICE) {
      const out = classify(i === 0 && sections.length <= CLASSIFY_SLICE ? sections : sections.slice(i, i + CLASSIFY_SLICE), vocab);
      if (variants.length) for (const c of out) c.review.variants = variants;
      for (const c of out) pending.push(c);
      if (pending.length >= CLASSIFY_SLICE) writeTx(ctx.db, storePending);
    }
  };

  const onFile = async (f: { relativePath: string; bytes: Uint8Array }) => {
    // Issue 12: what a file is decides before decoding: skipped kinds and translations are only counted.
    const skipKind = plan.skipKind(f.relativePath);
    const translation = skipKind ? null : plan.translationOf(f.relativePath);
    if (skipKind) tally.addKind(f.relativePath, skipKind);
    else if (translation) tally.addTranslation(f.relativePath, translation.language);
    else {
      // Issue 17: a big text entry is extracted a piece at a time (bounded memory); each piece's
      // candidates are stored before the next piece is read, the last piece's below with the progress.
      forEachTextPiece(f.relativePath, f.bytes, (piece, last) => {
        const content = decodeText(piece);
        if (!last) {
          extractOne(f.relativePath, content);
          writeTx(ctx.db, storePending);
          return;
        }
        // Issue 12: a Unity string table may wait for its collection's Shared Data keys.
        const join = tables.offer(f.relativePath, content, piece.byteLength);
        if (join.action !== "wait") extractOne(f.relativePath, content);
        if (join.action === "shared") for (const t of join.ready) extractOne(t.relativePath, t.content);
      });
    }
    completed++;
    bytes += f.bytes.byteLength;
    counted.add(normalizeEntryName(f.relativePath));
    const e = (costByExt[extensionOf(f.relativePath)] ??= { bytes: 0, micro: 0 });
    e.bytes += f.bytes.byteLength;
    e.micro += scanCostMicro(ctx.config.prices, f.bytes.byteLength);
    const now = performance.now();
    if (completed === 1 || now - committedAt >= COMMIT_EVERY_MS || pending.length >= CLASSIFY_SLICE) commit(now);
    // A scan makes garbage fast (every file's text, sections and rows); collecting every
    // GC_EVERY_BYTES keeps the process's RSS flat on a 200 MB archive (bench/scanner.ts).
    if (bytes - collectedAt >= GC_EVERY_BYTES) {
      collectedAt = bytes;
      Bun.gc(true);
    }
    // Yield between files so HTTP requests (progress polls) are served during a long scan.
    await new Promise((r) => setImmediate(r));
  };
  const onReject = (r: RejectedFile) => {
    skipped.add({ section: baseName(r.sourceFile) || r.sourceFile, reason: r.reason, sourceFile: r.sourceFile });
    const key = normalizeEntryName(r.sourceFile);
    if (listed.has(key) && !counted.has(key)) {
      counted.add(key);
      failed++;
      writeProgress();
    }
  };

  try {
    let archiveError: string | null = null;
    if (!hasUpload(ctx.config, job.id)) {
      archiveError = "The archive is no longer in storage.";
    } else {
      try {
        const result = await readArchive(uploadPath(ctx.config, job.id), manifest, onFile, { signal, onReject });
        for (const path of result.missing) {
          if (counted.has(normalizeEntryName(path))) continue;
          counted.add(normalizeEntryName(path));
          failed++;
          skipped.add({ section: baseName(path), reason: MISSING_FROM_ARCHIVE, sourceFile: path });
        }
      } catch (e) {
        if (!(e instanceof ArchiveError)) throw e;
        archiveError = `The archive could not be read: ${e.message}`;
      }
    }

    // String tables whose shared keys never came: extracted without keys. Then what the last files left pending.
    for (const t of tables.drain()) extractOne(t.relativePath, t.content);
    commit();

    let refine = { promptTokens: 0, completionTokens: 0, tokenMicro: 0, microByExtension: {} as Record<string, number> };
    const model = ctx.generation ?? ctx.llm;
    if (model && !archiveError && completed > 0) {
      const budget = job.reserved_micro - scanCostMicro(ctx.config.prices, bytes);
      try {
        refine = await refineWithModel(model, ctx.db, job, vocab, ctx.config.prices, budget, signal);
      } catch (e) {
        if (signal?.aborted) throw e;
        // The heuristic extractions stand on their own: a model failure only loses the refinement.
        ctx.log.warn("scan refinement failed; keeping heuristic extractions", { jobId: job.id, err: String(e) });
      }
    }
    for (const [ext, micro] of Object.entries(refine.microByExtension)) (costByExt[ext] ??= { bytes: 0, micro: 0 }).micro += micro;

    skipped.setSummaries(tally.entries());
    const status = archiveError || completed === 0 ? "FAILED" : "COMPLETED";
    const llmTokens = refine.promptTokens + refine.completionTokens;
    const ended = writeTx(ctx.db, () => {
      if (!stillProcessing(ctx.db, job.id, attempt)) return false;
      const s = status === "COMPLETED" ? settleScan(ctx, job, { bytes, tokenMicro: refine.tokenMicro, llmTokens }) : refundReservation(ctx, job);
      transition(ctx.db, job.id, {
        from: "PROCESSING",
        to: status,
        set: {
          completed_at: nowIso(ctx),
          completed_files: completed,
          failed_files: failed,
          bytes_processed: bytes,
          llm_tokens: llmTokens,
          cost_by_extension: JSON.stringify(costByExt),
          skipped: JSON.stringify(skipped),
          error_message: archiveError ?? (status === "FAILED" ? ALL_FILES_FAILED : null),
          actual_micro: s.actualMicro,
          credit_adjustment_micro: s.refundedMicro,
          adjustment_message: s.message,
        },
      });
      return true;
    });
    if (!ended) return "gone";
    deleteUpload(ctx.config, job.id);
    return status;
  } catch (e) {
    if (e instanceof JobGone) return "gone";
    const aborted = signal?.aborted === true;
    if (!aborted) ctx.log.error("scan job failed", { jobId: job.id, attempt, err: e instanceof Error ? (e.stack ?? e.message) : String(e) });
    return requeueOrFail(ctx, job, attempt, aborted);
  }
}

/** After a shutdown (not counted as an attempt) or an unexpected error: back to QUEUED, or FAILED and refunded once out of attempts. */
function requeueOrFail(ctx: ScannerContext, job: ScanJobRow, attempt: number, aborted: boolean): ProcessOutcome {
  return writeTx(ctx.db, () => {
    if (!stillProcessing(ctx.db, job.id, attempt)) return "gone" as const;
    if (aborted || attempt < SCANNER_LIMITS.maxAttempts) {
      transition(ctx.db, job.id, { from: "PROCESSING", to: "QUEUED", attemptsDelta: aborted ? -1 : 0 });
      return "requeued" as const;
    }
    failProcessing(ctx, job, `Processing failed ${attempt} times; the job was stopped and the reserved credits refunded.`);
    return "FAILED" as const;
  });
}

/** Ends a confirmed job as FAILED with the whole reservation refunded (inside a write transaction). */
export function failProcessing(ctx: ScannerContext, job: ScanJobRow, errorMessage: string): void {
  const s = refundReservation(ctx, job);
  transition(ctx.db, job.id, {
    from: "PROCESSING",
    to: "FAILED",
    set: { completed_at: nowIso(ctx), error_message: errorMessage, actual_micro: 0, credit_adjustment_micro: s.refundedMicro, adjustment_message: s.message },
  });
  deleteUpload(ctx.config, job.id);
}
