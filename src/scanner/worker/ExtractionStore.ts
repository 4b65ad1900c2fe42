import type { Db } from "../../db/openDatabase.ts";
import type { ReviewInfo } from "../extract/index.ts";
import { normalizeWords } from "../extract/text.ts";
import { NumberTable } from "./NumberTable.ts";
import { sketchSimilarity, wordSketch } from "./wordSketch.ts";
import { type StorableCandidate, uniqueWordsOf } from "./storableCandidate.ts";

/** Same-title extractions of a compatible size compared for near-identical text (classify compares 50 within a file). */
const MAX_NEAR_COMPARISONS = 50;
const NEAR_IDENTICAL = 0.9;
/**
 * A MinHash estimate below this rules a pair out without loading its text: with
 * 32 slots a true similarity of 0.9 estimates under 0.7 with probability < 0.5%.
 */
const SKETCH_CUTOFF = 0.7;

interface StoredRow {
  id: string;
  review: string | null;
  tags: string;
  location: string | null;
  source_files: string;
  base_confidence: number;
}

/**
 * The job's extractions in SQLite, merged across files as classify merges
 * within one: equal normalised text, or equal title with ≥ 90% word overlap,
 * make one extraction whose lead (highest confidence) gives title and text,
 * tags and sourceFiles unioned, +0.05 confidence per extra source file.
 * Texts stay in SQLite: memory holds one number pair per extraction (a
 * 48-bit text hash → ordinal map, checked against the full hash on a hit) and
 * same-title lookups go through an index. Call inside a write transaction.
 */
export class ExtractionStore {
  private ordinal = 0;
  /** 48 bits of the text hash → ordinal of the extraction whose first member had that text */
  private readonly byText = new NumberTable();
  /** 32-bit hashes of the titles stored so far: a title never seen needs no same-title lookup */
  private readonly titles = new NumberTable();
  private readonly idPrefix: string;
  private readonly byOrdinal;
  private readonly byTitle;
  private readonly byId;
  private readonly contentOf;
  private readonly setSketch;
  private readonly insert;
  private readonly update;

  constructor(
    private readonly db: Db,
    private readonly jobId: string,
    private readonly tagOrder: Map<string, number>,
  ) {
    // The store starts a job's extractions afresh (claim deletes an interrupted attempt's rows).
    // Ids follow the ordinal: appended to the primary-key index instead of inserted at random places.
    this.idPrefix = `ext_${jobId.slice(jobId.indexOf("_") + 1)}_`;
    this.byOrdinal = db.query<StoredRow & { text_hash: string }, [string, number]>(
      "SELECT id, tags, location, source_files, base_confidence, text_hash, review FROM scan_extractions WHERE job_id = ? AND ordinal = ?",
    );
    // Jaccard ≥ 0.9 needs word-set sizes within 10%: an index range over (title, size), read in index order and
    // cut at the limit, so a title shared by thousands of sections costs no more than one shared by fifty.
    this.byTitle = db.query<{ id: string; unique_words: number; sketch: Uint8Array | null }, [string, string, number, number, number]>(
      "SELECT id, unique_words, sketch FROM scan_extractions WHERE job_id = ? AND title_key = ? AND unique_words BETWEEN ? AND ? LIMIT ?",
    );
    this.byId = db.query<StoredRow, [string]>("SELECT id, tags, location, source_files, base_confidence, review FROM scan_extractions WHERE id = ?");
    this.contentOf = db.query<{ content: string }, [string]>("SELECT content FROM scan_extractions WHERE id = ?");
    this.setSketch = db.query("UPDATE scan_extractions SET sketch = ? WHERE id = ?");
    this.insert = db.query(
      `INSERT INTO scan_extractions (id, job_id, ordinal, title, tags, location, confidence, content, source_files,
         text_hash, title_key, unique_words, base_confidence, sketch, review)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.update = db.query(
      `UPDATE scan_extractions SET title = COALESCE(?, title), content = COALESCE(?, content), base_confidence = ?,
         tags = ?, location = ?, source_files = ?, confidence = ?, review = ? WHERE id = ?`,
    );
  }

  /** Adds one classified candidate (from one file); returns true when it merged into an earlier extraction. */
  add(c: StorableCandidate): boolean {
    const { textHash, titleKey, titleHash } = c;
    const titleSeen = this.titles.has(titleHash);
    // Sketches only matter among same-title extractions: the first of a title gets one when a second arrives.
    const same = this.sameText(textHash) ?? (titleSeen ? this.nearIdentical(c) : null);
    if (!same) {
      this.titles.set(titleHash, 1);
      const key = hashKey(textHash);
      if (!this.byText.has(key)) this.byText.set(key, this.ordinal);
      const ordinal = this.ordinal++;
      this.insert.run(
        this.idPrefix + ordinal.toString(36).padStart(6, "0"), this.jobId, ordinal, c.title, c.tagsJson, c.location, c.confidence, c.text,
        c.sourceFilesJson, textHash, titleKey, c.uniqueWords, c.confidence, titleSeen ? c.sketch : null, c.reviewJson,
      );
      return false;
    }
    const sourceFiles = JSON.parse(same.source_files) as string[];
    for (const f of JSON.parse(c.sourceFilesJson) as string[]) if (!sourceFiles.includes(f)) sourceFiles.push(f);
    const tags = [...new Set([...(JSON.parse(same.tags) as string[]), ...(JSON.parse(c.tagsJson) as string[])])].sort(
      (a, b) => (this.tagOrder.get(a) ?? 0) - (this.tagOrder.get(b) ?? 0),
    );
    const leads = c.confidence > same.base_confidence;
    const base = leads ? c.confidence : same.base_confidence;
    const location = leads ? (c.location ?? same.location) : (same.location ?? c.location);
    const confidence = Math.round(Math.min(1, Math.max(0, base + 0.05 * (sourceFiles.length - 1))) * 1000) / 1000;
    const review = mergeReview(same.review ? (JSON.parse(same.review) as ReviewInfo) : null, JSON.parse(c.reviewJson) as ReviewInfo, leads);
    this.update.run(leads ? c.title : null, leads ? c.text : null, base, JSON.stringify(tags), location, JSON.stringify(sourceFiles), confidence, JSON.stringify(review), same.id);
    return true;
  }

  private sameText(textHash: string): StoredRow | null {
    const ordinal = this.byText.get(hashKey(textHash));
    if (ordinal === undefined) return null;
    const row = this.byOrdinal.get(this.jobId, ordinal);
    return row && row.text_hash === textHash ? row : null;
  }

  private nearIdentical(c: StorableCandidate): StoredRow | null {
    const size = c.uniqueWords;
    const lo = Math.ceil(size * NEAR_IDENTICAL);
    const hi = Math.floor(size / NEAR_IDENTICAL);
    let mine: Set<string> | null = null;
    for (const row of this.byTitle.all(this.jobId, c.titleKey, lo, hi, MAX_NEAR_COMPARISONS)) {
      // Cheap checks before loading the text: Jaccard ≥ 0.9 needs sizes within 10% and a close sketch.
      const small = Math.min(size, row.unique_words);
      const large = Math.max(size, row.unique_words);
      if (large === 0 || small / large < NEAR_IDENTICAL) continue;
      if (row.sketch && sketchSimilarity(c.sketch, row.sketch) < SKETCH_CUTOFF) continue;
      mine ??= uniqueWordsOf(normalizeWords(c.text));
      const other = uniqueWordsOf(normalizeWords(this.contentOf.get(row.id)!.content));
      if (!row.sketch) this.setSketch.run(wordSketch(other), row.id);
      let shared = 0;
      for (const w of mine) if (other.has(w)) shared++;
      if (shared / (mine.size + other.size - shared) >= NEAR_IDENTICAL) return this.byId.get(row.id);
    }
    return null;
  }
}

/** A merged extraction's review metadata: the lead's kind and group, reasons, speakers and variants unioned. */
function mergeReview(stored: ReviewInfo | null, incoming: ReviewInfo, incomingLeads: boolean): ReviewInfo {
  if (!stored) return incoming;
  const [lead, other] = incomingLeads ? [incoming, stored] : [stored, incoming];
  const variants = [...lead.variants];
  for (const v of other.variants) if (!variants.some((x) => x.sourceFile === v.sourceFile)) variants.push(v);
  return {
    ...lead,
    reasons: { ...other.reasons, ...lead.reasons },
    speakers: [...new Set([...lead.speakers, ...other.speakers])],
    variants,
  };
}

function hashKey(textHash: string): number {
  return parseInt(textHash.slice(0, 12), 16);
}
