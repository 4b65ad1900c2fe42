import { type Candidate, classify, decodeText, extractFile, planScan, type ProjectVocabulary, type ScanPlan, type Skipped } from "../extract/index.ts";
import type { ExtractOptions } from "../extract/extractFile.ts";
import { StringTableJoin } from "./StringTableJoin.ts";
import { forEachTextPiece } from "./entryPieces.ts";
import { type StorableCandidate, toStorable } from "./storableCandidate.ts";
import { GarbageBudget, textChars } from "../GarbageBudget.ts";

/**
 * Sections classified (and handed on) per slice of one file. Small messages keep what the storing
 * thread holds at once small: 500 instead of 2,000 lowered the 200 MB archive's peak ~20 MB.
 */
export const CLASSIFY_SLICE = 500;
/**
 * The thread collects after every so many bytes of files read and characters of candidate text made
 * (GarbageBudget.ts), every other one of young objects only. Its heap holds ~7 MB live; every 8 MB
 * of files instead left the 200 MB archive's first seconds (an 8 MB JSON, a 4 MB YAML) ~40 MB higher.
 */
const GC_EVERY = 1024 * 1024;

/** What a scan's extraction needs to know up front: the same on either side of a thread. */
export interface ExtractorSetup {
  /** The manifest's paths (the scan plan and the string-table join read them). */
  paths: string[];
  userContext: string | null;
  vocab: ProjectVocabulary;
  /** Bytes of the process's RSS under which the thread forces no collection (GarbageBudget.ts; 0: always). */
  collectAboveRss?: number;
}

/** Where extraction's output goes: candidates a slice at a time, and the sections it skipped. */
export interface ExtractorSink {
  batch(candidates: StorableCandidate[], skipped: Skipped[]): void;
}

/**
 * One scan's extraction, file by file, with no database and no I/O: decodes
 * a file, extracts its sections, classifies them a slice at a time and hands
 * the candidates to the sink, ready to store (storableCandidate.ts). It holds what crosses files (the scan plan's
 * translation variants and the Unity string tables waiting for their shared
 * keys), so files must arrive in archive order. Runs inside the extraction
 * thread (extractionThreadEntry.ts); nothing here knows that.
 */
export class FileExtractor {
  readonly plan: ScanPlan;
  private readonly tables: StringTableJoin;
  private readonly opts: ExtractOptions;
  private pending: Candidate[] = [];
  private skipped: Skipped[] = [];
  private readonly garbage: GarbageBudget;

  constructor(
    private readonly setup: ExtractorSetup,
    private readonly sink: ExtractorSink,
  ) {
    this.garbage = new GarbageBudget(GC_EVERY, 2, setup.collectAboveRss ?? 0);
    this.plan = planScan(setup.paths, setup.userContext);
    this.tables = new StringTableJoin(setup.paths);
    this.opts = {
      includeMechanics: this.plan.includeMechanics,
      stringTableKeys: (c) => this.tables.keysOf(c),
      onWork: (units) => this.garbage.spend(units),
    };
  }

  /** Extracts one accepted file (not skipped, not a translation); everything it yields is flushed to the sink. */
  file(relativePath: string, bytes: Uint8Array): void {
    // A big text entry is extracted a piece at a time (bounded memory).
    forEachTextPiece(relativePath, bytes, (piece, last) => {
      const content = decodeText(piece);
      if (!last) {
        this.extract(relativePath, content);
        this.flush();
        return;
      }
      // A Unity string table may wait for its collection's Shared Data keys.
      const join = this.tables.offer(relativePath, content, piece.byteLength);
      if (join.action !== "wait") this.extract(relativePath, content);
      if (join.action === "shared") for (const t of join.ready) this.extract(t.relativePath, t.content);
    });
    this.flush();
    this.garbage.spend(bytes.byteLength);
  }

  /** The archive ended: string tables whose shared keys never came are extracted without keys. */
  end(): void {
    for (const t of this.tables.drain()) this.extract(t.relativePath, t.content);
    this.flush();
  }

  private extract(relativePath: string, content: string): void {
    // A compiled story is a copy only of sources in its own project, not of any in the archive.
    const extraction = extractFile(relativePath, content, {
      ...this.opts,
      hasInkSource: this.plan.hasInkSourceFor(relativePath),
      hasTweeSource: this.plan.hasTweeSourceFor(relativePath),
    });
    const variants = this.plan.variantsOf(relativePath);
    for (const s of extraction.skipped) this.skipped.push(s);
    const sections = extraction.sections;
    // A file with thousands of sections (an 8 MB dialogue database) is classified and handed on a
    // slice at a time, so its candidates are never all in memory.
    for (let i = 0; i < sections.length; i += CLASSIFY_SLICE) {
      const out = classify(i === 0 && sections.length <= CLASSIFY_SLICE ? sections : sections.slice(i, i + CLASSIFY_SLICE), this.setup.vocab);
      if (variants.length) for (const c of out) c.review.variants = variants;
      for (const c of out) this.pending.push(c);
      if (this.pending.length >= CLASSIFY_SLICE) this.flush();
    }
  }

  private flush(): void {
    if (this.pending.length === 0 && this.skipped.length === 0) return;
    const batch = this.pending.map(toStorable);
    this.garbage.spend(textChars(batch));
    const skipped = this.skipped;
    this.pending = [];
    this.skipped = [];
    this.sink.batch(batch, skipped);
  }
}
