import { ApiError } from "../core/errors.ts";

/**
 * Per-group review of a scan job: a reviewer accepts or rejects a whole
 * group, file, folder or kind at once, and hides what is dealt with (hidden groups show only
 * counts). Optional extras on the spec's endpoints: the detail form gains `reviewGroups` with
 * `?groups=true` and drops hidden extractions with `?hide=…`; commit takes `accept`/`reject`
 * selections beside `extractionIds`.
 */

/** What a reviewer picks: whole groups, source files, folders (path prefixes) or kinds. */
export interface Selection {
  groups?: string[];
  files?: string[];
  folders?: string[];
  kinds?: string[];
}

export interface Selectable {
  group: string;
  kind: string;
  sourceFiles: string[];
}

export function isEmptySelection(s: Selection | undefined): boolean {
  return !s || !(s.groups?.length || s.files?.length || s.folders?.length || s.kinds?.length);
}

interface CompiledSelection {
  groups: Set<string>;
  kinds: Set<string>;
  files: Set<string>;
  folders: string[];
}

// A commit or a review may carry thousands of rejected groups and files, checked against every extraction
// of the job: the lists become sets once per selection object, not a linear scan per extraction.
const compiled = new WeakMap<Selection, CompiledSelection>();

function compile(s: Selection): CompiledSelection {
  let c = compiled.get(s);
  if (!c) {
    c = {
      groups: new Set(s.groups ?? []),
      kinds: new Set(s.kinds ?? []),
      files: new Set(s.files ?? []),
      folders: (s.folders ?? []).map((f) => (f.endsWith("/") ? f : `${f}/`)),
    };
    compiled.set(s, c);
  }
  return c;
}

/** Does an extraction fall in the selection (any of its source files counts for files and folders)? */
export function selects(s: Selection | undefined, e: Selectable): boolean {
  if (!s) return false;
  const c = compile(s);
  if (c.groups.has(e.group) || c.kinds.has(e.kind)) return true;
  if (c.files.size && e.sourceFiles.some((f) => c.files.has(f))) return true;
  for (const prefix of c.folders) if (e.sourceFiles.some((f) => f.startsWith(prefix))) return true;
  return false;
}

/**
 * `hide` query value → Selection: comma-separated `kind:<kind>`, `group:<group>`, `file:<path>`,
 * `folder:<path>`; anything else is reported so the caller can answer 400.
 */
export function parseHide(value: string | undefined): { selection: Selection; invalid: string[] } {
  const selection: Selection = {};
  const invalid: string[] = [];
  if (!value) return { selection, invalid };
  for (const raw of value.split(",")) {
    const item = raw.trim();
    if (!item) continue;
    const colon = item.indexOf(":");
    const what = colon > 0 ? item.slice(0, colon) : "";
    const arg = item.slice(colon + 1);
    const list = what === "kind" ? "kinds" : what === "group" ? "groups" : what === "file" ? "files" : what === "folder" ? "folders" : null;
    if (!list || !arg) invalid.push(item);
    else (selection[list] ??= []).push(arg);
  }
  return { selection, invalid };
}

export interface ReviewGroupView {
  group: string;
  kind: string;
  /** The first extraction's title. */
  title: string;
  count: number;
  /** Extractions of the group left out by `hide`. */
  hiddenCount: number;
  /** Every extraction hidden: the group shows only its counts. */
  hidden: boolean;
  /** Highest confidence in the group. */
  confidence: number;
  /** Source files of the group (first 20). */
  sourceFiles: string[];
  /** The visible extractions' ids (absent when the group is hidden). */
  extractionIds?: string[];
}

const MAX_GROUP_FILES = 20;

/**
 * Knowledge tags suggested for one character: the project tags and locations of the
 * scenes it speaks in — what it says and what it is told there — most scenes first. A studio
 * gives these to the character's Entity Mind as knowledge tags.
 */
export interface KnowledgeSuggestion {
  speaker: string;
  /** Dialogue extractions the character speaks in. */
  scenes: number;
  tags: { tag: string; scenes: number }[];
  locations: { location: string; scenes: number }[];
}

/** Builds reviewGroups while the detail streams its extractions (one pass, a few fields per extraction). */
export class GroupTally {
  private readonly groups = new Map<string, ReviewGroupView & { ids: string[] }>();
  private readonly speakers = new Map<string, { scenes: number; tags: Map<string, number>; locations: Map<string, number> }>();

  add(e: Selectable & { id: string; title: string; confidence: number; speakers: string[]; tags: string[]; location: string | null }, hidden: boolean): void {
    for (const name of e.speakers) {
      let s = this.speakers.get(name);
      if (!s) this.speakers.set(name, (s = { scenes: 0, tags: new Map(), locations: new Map() }));
      s.scenes++;
      for (const t of e.tags) s.tags.set(t, (s.tags.get(t) ?? 0) + 1);
      if (e.location) s.locations.set(e.location, (s.locations.get(e.location) ?? 0) + 1);
    }
    let g = this.groups.get(e.group);
    if (!g) {
      g = { group: e.group, kind: e.kind, title: e.title, count: 0, hiddenCount: 0, hidden: false, confidence: 0, sourceFiles: [], ids: [] };
      this.groups.set(e.group, g);
    }
    g.count++;
    if (hidden) g.hiddenCount++;
    else g.ids.push(e.id);
    g.confidence = Math.max(g.confidence, e.confidence);
    for (const f of e.sourceFiles) if (g.sourceFiles.length < MAX_GROUP_FILES && !g.sourceFiles.includes(f)) g.sourceFiles.push(f);
  }

  /** Characters with most scenes first; their tags and locations most scenes first. */
  knowledge(): KnowledgeSuggestion[] {
    const byCount = <K extends string>(m: Map<string, number>, key: K) =>
      [...m].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([name, scenes]) => ({ [key]: name, scenes }) as Record<K, string> & { scenes: number });
    return [...this.speakers]
      .sort((a, b) => b[1].scenes - a[1].scenes || a[0].localeCompare(b[0]))
      .map(([speaker, s]) => ({ speaker, scenes: s.scenes, tags: byCount(s.tags, "tag"), locations: byCount(s.locations, "location") }));
  }

  /** Groups in first-seen order. */
  views(): ReviewGroupView[] {
    return [...this.groups.values()].map(({ ids, ...g }) => {
      const hidden = g.hiddenCount === g.count;
      return hidden ? { ...g, hidden } : { ...g, hidden, extractionIds: ids };
    });
  }
}

/** The detail form's review query (`?groups=true&hide=kind:other,folder:Assets/Plugins`); a bad selector is 400. */
export function detailReview(query: { groups?: string; hide?: string }): { groups: boolean; hide: Selection } {
  const { selection, invalid } = parseHide(query.hide);
  if (invalid.length) {
    throw new ApiError(400, "Invalid request", { details: invalid.map((s) => `hide: '${s}' is not kind:<kind>, group:<group>, file:<path> or folder:<path>`) });
  }
  return { groups: query.groups === "true" || query.groups === "1", hide: selection };
}
