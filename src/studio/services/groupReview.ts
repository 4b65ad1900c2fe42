import type { ScannerContext } from "../../core/context.ts";
import { invalidRequest } from "../../core/errors.ts";
import { readMinds } from "../../lore/minds/readMinds.ts";
import { GroupTally, selects, type ReviewGroupView, type Selection } from "../../scanner/reviewGroups.ts";
import { loadJob } from "../../scanner/scanJobRow.ts";
import { extractionGroupRows, tagNames } from "../studioReadStore.ts";
import { checkSelectionKinds, foldersOf, REVIEW_KINDS, reviewFieldsOf } from "./reviewFields.ts";

/**
 * Per-group review for the Studio: the scan's groups (an entity
 * across files, or a scene) with what is still open, rejected (hidden) or committed, the kinds,
 * folders and files a reviewer accepts or rejects in one action, the knowledge each speaking
 * character should get (matched to the project's minds) and the skipped content by reason.
 * Rejections are not stored server-side: the Studio sends what it hides.
 */

export interface GroupReviewQuery {
  /** what the reviewer rejected: those extractions are hidden, a wholly hidden group shows only counts */
  hide?: Selection;
  kind?: string;
  minConfidence?: number;
  /** in the title, group key or a source file (case-insensitive) */
  search?: string;
  /** leave out groups every extraction of which is committed or hidden (default: keep them) */
  openOnly?: boolean;
  limit?: number;
  offset?: number;
}

/** The scanner's review group, plus what the Studio shows beside it. */
export interface GroupView extends ReviewGroupView {
  committedCount: number;
  speakers: string[];
  /** languages of the translation variants attached to the group's extractions */
  languages: string[];
}

export interface Facet {
  name: string;
  count: number;
  hidden: number;
  committed: number;
}

const MAX_FILES = 20;
const MAX_SPEAKERS = 8;
const MAX_FACETS = 500;

function bump(m: Map<string, Facet>, name: string, hidden: boolean, committed: boolean) {
  let f = m.get(name);
  if (!f) m.set(name, (f = { name, count: 0, hidden: 0, committed: 0 }));
  f.count++;
  if (hidden) f.hidden++;
  if (committed) f.committed++;
}

const facetList = (m: Map<string, Facet>, byName = false) =>
  [...m.values()].sort((a, b) => (byName ? a.name.localeCompare(b.name) : b.count - a.count || a.name.localeCompare(b.name))).slice(0, MAX_FACETS);

const addUnique = (list: string[], items: string[], max: number) => {
  for (const x of items) if (list.length < max && !list.includes(x)) list.push(x);
};

export function reviewGroups(ctx: ScannerContext, projectId: string, jobId: string, q: GroupReviewQuery) {
  checkSelectionKinds("hide", q.hide);
  if (q.kind !== undefined && !REVIEW_KINDS.includes(q.kind as never)) throw invalidRequest(`kind: unknown kind '${q.kind}' (${REVIEW_KINDS.join(", ")})`);
  const job = loadJob(ctx, projectId, jobId);
  const groups = new Map<string, GroupView & { ids: string[] }>();
  const kinds = new Map<string, Facet>();
  const folders = new Map<string, Facet>();
  const files = new Map<string, Facet>();
  const tally = new GroupTally();
  const totals = { extractions: 0, hidden: 0, committed: 0, open: 0 };
  // A reviewer's rejections grow to thousands of groups and files: those are looked up in sets; kinds and
  // folders (few) keep the scanner's own matching, so hide means here what reject means to a commit.
  const hiddenGroups = new Set(q.hide?.groups ?? []);
  const hiddenFiles = new Set(q.hide?.files ?? []);
  const rest = { kinds: q.hide?.kinds, folders: q.hide?.folders };
  const isHidden = (e: { group: string; kind: string; sourceFiles: string[] }) =>
    hiddenGroups.has(e.group) || e.sourceFiles.some((f) => hiddenFiles.has(f)) || selects(rest, e);
  for (const row of extractionGroupRows(ctx.db, projectId, job.id)) {
    const r = reviewFieldsOf(row.review, row.id);
    const sourceFiles = JSON.parse(row.source_files) as string[];
    const tags = JSON.parse(row.tags) as string[];
    const e = { id: row.id, title: row.title, confidence: row.confidence, tags, location: row.location, sourceFiles, ...r };
    const hidden = isHidden(e);
    const committed = row.document_id !== null;
    totals.extractions++;
    if (hidden) totals.hidden++;
    else if (committed) totals.committed++;
    else totals.open++;
    // What a character should know comes from the scenes still in play, not from rejected ones.
    if (!hidden) tally.add(e, false);
    bump(kinds, r.kind, hidden, committed);
    for (const f of sourceFiles) {
      bump(files, f, hidden, committed);
      for (const d of foldersOf(f)) bump(folders, d, hidden, committed);
    }
    let g = groups.get(r.group);
    if (!g) {
      g = { group: r.group, kind: r.kind, title: row.title, count: 0, hiddenCount: 0, hidden: false, committedCount: 0, confidence: 0, sourceFiles: [], speakers: [], languages: [], ids: [] };
      groups.set(r.group, g);
    }
    g.count++;
    if (hidden) g.hiddenCount++;
    else g.ids.push(row.id);
    if (committed) g.committedCount++;
    g.confidence = Math.max(g.confidence, row.confidence);
    addUnique(g.sourceFiles, sourceFiles, MAX_FILES);
    addUnique(g.speakers, r.speakers, MAX_SPEAKERS);
    addUnique(
      g.languages,
      r.variants.map((v) => v.language),
      50,
    );
  }
  const search = q.search?.trim().toLowerCase();
  const shown = [...groups.values()]
    .map(({ ids, ...g }) => {
      const hidden = g.hiddenCount === g.count;
      return hidden ? { ...g, hidden } : { ...g, hidden, extractionIds: ids };
    })
    .filter((g) => (q.kind === undefined || g.kind === q.kind) && (q.minConfidence === undefined || g.confidence >= q.minConfidence))
    .filter((g) => !search || g.title.toLowerCase().includes(search) || g.group.toLowerCase().includes(search) || g.sourceFiles.some((f) => f.toLowerCase().includes(search)))
    .filter((g) => !q.openOnly || (!g.hidden && g.committedCount + g.hiddenCount < g.count));
  // Open work first, the likeliest lore first within it; done and rejected groups sink to the end.
  const settled = (g: GroupView) => (g.hidden ? 2 : g.committedCount + g.hiddenCount >= g.count ? 1 : 0);
  shown.sort((a, b) => settled(a) - settled(b) || b.confidence - a.confidence || a.title.localeCompare(b.title));
  const offset = q.offset ?? 0;
  return {
    jobId: job.id,
    status: job.status,
    totals: { ...totals, groups: groups.size },
    matchedGroups: shown.length,
    groups: shown.slice(offset, offset + (q.limit ?? 100)),
    kinds: facetList(kinds),
    folders: facetList(folders, true),
    files: facetList(files, true),
    knowledgeSuggestions: suggestionsForMinds(ctx, projectId, tally),
    skipped: skippedSummary(JSON.parse(job.skipped) as { section: string; reason: string; sourceFile: string }[]),
  };
}

/**
 * The scanner's knowledge suggestions, each matched to the project's Entity Mind of the same name
 * (case-insensitive): which suggested tags the mind lacks and which are not project tags at all
 * (a reviewer's edit can name one; the mind update path only takes existing tags).
 */
function suggestionsForMinds(ctx: ScannerContext, projectId: string, tally: GroupTally) {
  const suggestions = tally.knowledge();
  if (suggestions.length === 0) return [];
  const minds = new Map(readMinds(ctx, projectId).map((m) => [m.entityName.trim().toLowerCase(), m]));
  const existing = new Set(tagNames(ctx.db, projectId));
  return suggestions.map((s) => {
    const m = minds.get(s.speaker.trim().toLowerCase());
    const has = new Set(m?.knowledgeTags ?? []);
    return {
      ...s,
      tags: s.tags.map((t) => ({ ...t, exists: existing.has(t.tag), known: has.has(t.tag) })),
      mind: m ? { id: m.id, entityName: m.entityName, knowledgeTags: m.knowledgeTags } : null,
      newTags: s.tags.map((t) => t.tag).filter((t) => existing.has(t) && !has.has(t)),
    };
  });
}

/** skippedContent by reason, with the userContext line that scans it again (`include: engine`). */
function skippedSummary(entries: { section: string; reason: string; sourceFile: string }[]) {
  const byReason = new Map<string, { reason: string; include: string | null; files: number; entries: { section: string; sourceFile: string }[] }>();
  for (const e of entries) {
    let s = byReason.get(e.reason);
    if (!s) {
      const include = /"include: ([a-z]+)"/.exec(e.reason)?.[1] ?? null;
      byReason.set(e.reason, (s = { reason: e.reason, include, files: 0, entries: [] }));
    }
    // The scanner writes "(12 files)" into a folder's section; a section without a count is one file's.
    const n = /\((\d+) files?\)$|^(\d+) more files$/.exec(e.section);
    s.files += Number(n?.[1] ?? n?.[2] ?? 1);
    if (s.entries.length < 50) s.entries.push({ section: e.section, sourceFile: e.sourceFile });
  }
  return [...byReason.values()].sort((a, b) => b.files - a.files);
}
