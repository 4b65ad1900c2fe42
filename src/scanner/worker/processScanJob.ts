import { ArchiveError, readArchive, type RejectedFile } from "../archive/index.ts";
import { normalizeEntryName } from "../archive/entryName.ts";
import { planScan, type ProjectVocabulary } from "../extract/index.ts";
import type { StorableCandidate } from "./storableCandidate.ts";
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
import { CLASSIFY_SLICE } from "./FileExtractor.ts";
import { ExtractionThread } from "./ExtractionThread.ts";
import { GarbageBudget, RSS_HEADROOM, textChars } from "../GarbageBudget.ts";

/**
 * This thread collects after every so many characters of candidate text received: storing them is
 * what makes its garbage (GarbageBudget.ts). A file only counted (a translation, a skipped kind) is
 * one buffer, not worth a collection of this thread's whole heap. On the 200 MB archive, 1 MB of
 * text against 8 MB of files lowered the steady RSS ~50 MB for ~5% more CPU (bench/scanner.ts).
 */
const GC_EVERY = 1024 * 1024;
/** How far (bytes of files) the archive reader may run ahead of the extraction thread. */
const IN_FLIGHT_BYTES = 4 * 1024 * 1024;
/**
 * For speed: candidates and progress are committed together at most this often (and when
 * CLASSIFY_SLICE candidates wait), not once per file: a commit per file of a 1,700-file archive was a
 * fifth of the scan. The first file commits at once, so a poller sees the job move from the start.
 */
const COMMIT_EVERY_MS = 50;

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
  const tally = new SkipTally();
  const listed = new Map(manifest.map((f) => [normalizeEntryName(f.relativePath), f]));
  const counted = new Set<string>();
  const costByExt: CostByExtension = {};
  let completed = 0;
  let failed = 0;
  let bytes = 0;
  // Both threads count from the same mark: the RSS is the process's.
  const collectAboveRss = process.memoryUsage.rss() + RSS_HEADROOM;
  const garbage = new GarbageBudget(GC_EVERY, 1, collectAboveRss);

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

  // For speed: decoding, extracting and classifying run on a second thread while this one
  // reads and inflates the archive and stores candidates; `pending` waits for the next transaction.
  let pending: StorableCandidate[] = [];
  const storePending = () => {
    const batch = pending;
    pending = [];
    for (const c of batch) store.add(c);
  };
  const finishFile = (relativePath: string, size: number) => {
    completed++;
    bytes += size;
    counted.add(normalizeEntryName(relativePath));
    const e = (costByExt[extensionOf(relativePath)] ??= { bytes: 0, micro: 0 });
    e.bytes += size;
    e.micro += scanCostMicro(ctx.config.prices, size);
    const now = performance.now();
    if (completed === 1 || now - committedAt >= COMMIT_EVERY_MS || pending.length >= CLASSIFY_SLICE) commit(now);
  };
  const thread = new ExtractionThread(
    { paths: manifest.map((f) => f.relativePath), userContext: job.user_context, vocab, collectAboveRss },
    {
      batch: (candidates, skippedSections) => {
        garbage.spend(textChars(candidates));
        for (const s of skippedSections) skipped.add(s);
        for (const c of candidates) pending.push(c);
        if (pending.length >= CLASSIFY_SLICE) writeTx(ctx.db, storePending);
      },
      fileDone: finishFile,
    },
    signal,
  );

  // What each file is, decided here before it is read; the extraction thread plans the same paths for
  // itself (variants, Ink/Twee sources: a plan holds functions and cannot cross threads), at the same
  // time, since its setup went first (2,000 paths are ~40 ms of planning).
  const plan = planScan(manifest.map((f) => f.relativePath), job.user_context);
  const onFile = async (f: { relativePath: string; bytes: Uint8Array }) => {
    // What a file is decides before decoding: skipped kinds and translations are only counted.
    const skipKind = plan.skipKind(f.relativePath);
    const translation = skipKind ? null : plan.translationOf(f.relativePath);
    if (skipKind || translation) {
      if (skipKind) tally.addKind(f.relativePath, skipKind);
      else tally.addTranslation(f.relativePath, translation!.language);
      finishFile(f.relativePath, f.bytes.byteLength);
    } else {
      thread.send(f.relativePath, f.bytes);
    }
    // The reader stays at most IN_FLIGHT_BYTES ahead of extraction: the archive is never queued in memory.
    await thread.drainTo(IN_FLIGHT_BYTES);
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
        await thread.drainTo(0);
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

    // What the thread still holds (and string tables whose shared keys never came), then what is left pending.
    await thread.end();
    await thread.close();
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
  } finally {
    await thread.close();
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
