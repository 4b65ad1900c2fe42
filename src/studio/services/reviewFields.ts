import { invalidRequest } from "../../core/errors.ts";
import type { Selection } from "../../scanner/reviewGroups.ts";

/** The scanner's review kinds; a selection or filter naming another kind is a caller's mistake. */
export const REVIEW_KINDS = ["character", "location", "item", "faction", "event", "dialogue", "other"] as const;

export interface ReviewFields {
  kind: string;
  group: string;
  reasons: Record<string, string>;
  speakers: string[];
  variants: { language: string; sourceFile: string }[];
}

/**
 * An extraction's review fields from its stored JSON. Rows written before the scanner's v2 have
 * none: kind "other" and a group of their own (as GET /v1/scanner/jobs/{id} shows them).
 */
export function reviewFieldsOf(json: string | null, id: string): ReviewFields {
  const r = json ? (JSON.parse(json) as Partial<ReviewFields>) : {};
  return { kind: r.kind ?? "other", group: r.group ?? id, reasons: r.reasons ?? {}, speakers: r.speakers ?? [], variants: r.variants ?? [] };
}

/** 400 `Invalid request` naming each unknown kind of a selection (`hide.kinds[1]: unknown kind 'spell' …`). */
export function checkSelectionKinds(path: string, s: Selection | undefined): void {
  const problems = (s?.kinds ?? []).flatMap((k, i) => (REVIEW_KINDS.includes(k as never) ? [] : [`${path}.kinds[${i}]: unknown kind '${k}' (${REVIEW_KINDS.join(", ")})`]));
  if (problems.length) throw invalidRequest(...problems);
}

/** Every folder a path sits in, outermost first: "a/b/c.md" → ["a", "a/b"]. */
export function foldersOf(path: string): string[] {
  const parts = path.split("/").slice(0, -1);
  return parts.map((_, i) => parts.slice(0, i + 1).join("/"));
}
