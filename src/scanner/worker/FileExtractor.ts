import { type Candidate, classify, decodeText, extractFile, planScan, type ProjectVocabulary, type ScanPlan, type Skipped } from "../extract/index.ts";
import type { ExtractOptions } from "../extract/extractFile.ts";
import { StringTableJoin } from "./StringTableJoin.ts";
import { forEachTextPiece } from "./entryPieces.ts";
import { type StorableCandidate, toStorable } from "./storableCandidate.ts";

/** Sections classified (and handed on) per slice of one file. */
export const CLASSIFY_SLICE = 2_000;
/** A scan makes garbage fast (every file's text and sections): collecting this often keeps RSS flat. */
const GC_EVERY_BYTES = 8 * 1024 * 1024;

/** What a scan's extraction needs to know up front: the same on either side of a thread. */
export interface ExtractorSetup {
  /** The manifest's paths (the scan plan and the string-table join read them). */
  paths: string[];
  userContext: string | null;
  vocab: ProjectVocabulary;
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
  private sinceCollected = 0;

  constructor(
    private readonly setup: ExtractorSetup,
    private readonly sink: ExtractorSink,
  ) {
    this.plan = planScan(setup.paths, setup.userContext);
    this.tables = new StringTableJoin(setup.paths);
    this.opts = {
      hasInkSource: this.plan.hasInkSource,
      hasTweeSource: this.plan.hasTweeSource,
      includeMechanics: this.plan.includeMechanics,
      stringTableKeys: (c) => this.tables.keysOf(c),
    };
  }

  /** Extracts one accepted file (not skipped, not a translation); everything it yields is flushed to the sink. */
  file(relativePath: string, bytes: Uint8Array): void {
    // Issue 17: a big text entry is extracted a piece at a time (bounded memory).
    forEachTextPiece(relativePath, bytes, (piece, last) => {
      const content = decodeText(piece);
      if (!last) {
        this.extract(relativePath, content);
        this.flush();
        return;
      }
      // Issue 12: a Unity string table may wait for its collection's Shared Data keys.
      const join = this.tables.offer(relativePath, content, piece.byteLength);
      if (join.action !== "wait") this.extract(relativePath, content);
      if (join.action === "shared") for (const t of join.ready) this.extract(t.relativePath, t.content);
    });
    this.flush();
    this.sinceCollected += bytes.byteLength;
    if (this.sinceCollected >= GC_EVERY_BYTES) {
      this.sinceCollected = 0;
      Bun.gc(true);
    }
  }

  /** The archive ended: string tables whose shared keys never came are extracted without keys. */
  end(): void {
    for (const t of this.tables.drain()) this.extract(t.relativePath, t.content);
    this.flush();
  }

  private extract(relativePath: string, content: string): void {
    const extraction = extractFile(relativePath, content, this.opts);
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
    const skipped = this.skipped;
    this.pending = [];
    this.skipped = [];
    this.sink.batch(batch, skipped);
  }
}
