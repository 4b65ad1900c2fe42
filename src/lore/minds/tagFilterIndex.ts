import type { Db } from "../../db/openDatabase.ts";
import { documentsTagged, projectDocumentNames, projectDocumentTags } from "../documents/documentListStore.ts";
import { loreRevision } from "../documents/documentStore.ts";

/** The lore a set of knowledge tags opens: how many documents and chunks, and the documents' names by name. */
export interface TagFilter {
  documentCount: number;
  chunkCount: number;
  /** the first few names in name order (a knowledge sentence shows three) */
  firstNames: string[];
  totalNames: number;
}

const SHOWN_NAMES = 3;
/** Minds from which one read of the project's tagged documents beats a query per mind. */
const INDEX_FROM_MINDS = 8;
/** Projects whose index is kept between requests (~100 B a document), least recently used out first. */
const KEPT_PROJECTS = 4;

/**
 * Indexes kept per database and project with the lore revision they were read at (migration 034: it moves with
 * every write of one of the project's documents, tag changes included, since those re-queue the documents): a
 * list of 1,000 minds over 100,000 documents read and numbered them all at every request (~190 ms).
 */
const kept = new WeakMap<Db, Map<string, { revision: number; index: TagFilterIndex }>>();

/**
 * Filters of many minds at once. A query per mind (DISTINCT over the tag join, sorted by name) cost
 * seconds for 1,000 minds over 50,000 documents; here the project's tagged documents are read once,
 * numbered in name order, and each mind's union is a pass over its tags' lists with a stamp per
 * document (no sets, no sorting): the smallest numbers are the first names.
 */
export class TagFilterIndex {
  private names: string[] = [];
  private chunks: number[] = [];
  private byTag = new Map<string, number[]>();
  private stamps = new Int32Array(0);
  private stamp = 0;

  private constructor(
    private readonly db: Db,
    private readonly projectId: string,
    private readonly indexed: boolean,
  ) {
    if (!indexed) return;
    // Numbered in name order, as the per-mind query sorted them (ties by id), sorted here: SQLite sorting the
    // joined rows cost more than both plain reads.
    const docs = projectDocumentNames(db, projectId).sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
    const ids = new Map<string, number>();
    for (const d of docs) {
      ids.set(d.id, this.names.length);
      this.names.push(d.name);
      this.chunks.push(d.chunk_count);
    }
    for (const r of projectDocumentTags(db, projectId)) {
      const n = ids.get(r.document_id);
      if (n === undefined) continue;
      const list = this.byTag.get(r.tag);
      if (list) list.push(n);
      else this.byTag.set(r.tag, [n]);
    }
    // Each tag's list in name order: a mind's first names are then found without sorting its union.
    for (const list of this.byTag.values()) list.sort((x, y) => x - y);
    this.stamps = new Int32Array(this.names.length);
  }

  static forMinds(db: Db, projectId: string, minds: number): TagFilterIndex {
    if (minds < INDEX_FROM_MINDS) return new TagFilterIndex(db, projectId, false);
    let byProject = kept.get(db);
    if (!byProject) kept.set(db, (byProject = new Map()));
    // Read before the documents: a write landing in between leaves an index newer than its revision, read again next time.
    const revision = loreRevision(db, projectId);
    const hit = byProject.get(projectId);
    byProject.delete(projectId);
    const index = hit && hit.revision === revision ? hit.index : new TagFilterIndex(db, projectId, true);
    byProject.set(projectId, { revision, index });
    for (const old of byProject.keys()) {
      if (byProject.size <= KEPT_PROJECTS) break;
      byProject.delete(old);
    }
    return index;
  }

  filter(tags: string[]): TagFilter {
    if (tags.length === 0) return { documentCount: 0, chunkCount: 0, firstNames: [], totalNames: 0 };
    if (!this.indexed) return this.queried(tags);
    const stamp = ++this.stamp;
    let documentCount = 0;
    let chunkCount = 0;
    const first: number[] = [];
    for (const tag of tags) {
      for (const n of this.byTag.get(tag) ?? []) {
        if (this.stamps[n] === stamp) continue;
        this.stamps[n] = stamp;
        documentCount++;
        chunkCount += this.chunks[n];
        if (first.length < SHOWN_NAMES || n < first[first.length - 1]) {
          first.push(n);
          first.sort((a, b) => a - b);
          if (first.length > SHOWN_NAMES) first.pop();
        }
      }
    }
    return { documentCount, chunkCount, firstNames: first.map((n) => this.names[n]), totalNames: documentCount };
  }

  private queried(tags: string[]): TagFilter {
    const docs = documentsTagged(this.db, this.projectId, tags);
    return {
      documentCount: docs.length,
      chunkCount: docs.reduce((n, d) => n + d.chunk_count, 0),
      firstNames: docs.slice(0, SHOWN_NAMES).map((d) => d.name),
      totalNames: docs.length,
    };
  }
}
