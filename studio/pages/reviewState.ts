import { useState } from "preact/hooks";

/**
 * A reviewer's rejections of one scan job. The server stores none by design (a rejection is "not
 * this"; only accepted extractions become documents), so the Studio keeps them in this browser's
 * localStorage, one entry per project and job: they survive a reload and a sign-out, and are sent
 * as `hide` (what the review leaves out) and as `reject` beside every accept, so that accepting a
 * folder never commits what was rejected inside it.
 */
export interface Selection {
  groups: string[];
  files: string[];
  folders: string[];
  kinds: string[];
}
export type SelectorKind = keyof Selection;

const empty = (): Selection => ({ groups: [], files: [], folders: [], kinds: [] });
const storageKey = (projectId: string, jobId: string) => `lorehold.review.${projectId}.${jobId}`;

export function loadRejected(projectId: string, jobId: string): Selection {
  try {
    const raw = JSON.parse(localStorage.getItem(storageKey(projectId, jobId)) ?? "null");
    const s = empty();
    if (raw && typeof raw === "object") for (const k of Object.keys(s) as SelectorKind[]) if (Array.isArray(raw[k])) s[k] = raw[k].filter((x: unknown) => typeof x === "string");
    return s;
  } catch {
    return empty();
  }
}

export const isEmpty = (s: Selection) => s.groups.length + s.files.length + s.folders.length + s.kinds.length === 0;

/** The selection without its empty lists (what the API takes). */
export const compact = (s: Selection) => Object.fromEntries(Object.entries(s).filter(([, v]) => v.length > 0));

export function useRejected(projectId: string, jobId: string) {
  const [rejected, set] = useState<Selection>(() => loadRejected(projectId, jobId));
  const save = (next: Selection) => {
    set(next);
    if (isEmpty(next)) localStorage.removeItem(storageKey(projectId, jobId));
    else localStorage.setItem(storageKey(projectId, jobId), JSON.stringify(next));
  };
  return {
    rejected,
    reject: (kind: SelectorKind, value: string) => !rejected[kind].includes(value) && save({ ...rejected, [kind]: [...rejected[kind], value] }),
    restore: (kind: SelectorKind, value: string) => save({ ...rejected, [kind]: rejected[kind].filter((v) => v !== value) }),
    clear: () => save(empty()),
  };
}
