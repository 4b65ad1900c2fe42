import { invalidRequest } from "../core/errors.ts";
import type { ServiceContext } from "../core/context.ts";
import { parseManifest } from "./scanJobRow.ts";
import { latestCompletedManifest } from "./scanJobStore.ts";

export interface RescanResult {
  changed: string[];
  added: string[];
  deleted: string[];
  unchanged: string[];
}

/**
 * POST /scanner/rescan: the caller's files against the manifest of the
 * project's latest COMPLETED job. A file is matched by its previous
 * relativePath, or else by its previous filename (each previous file matched
 * once); `deleted` lists the previous relativePaths nothing matched. With no
 * completed job yet, everything is `added`.
 */
export function rescan(ctx: ServiceContext, projectId: string, files: { filename: string; contentHash: string }[]): RescanResult {
  const seen = new Set<string>();
  for (const [i, f] of files.entries()) {
    if (seen.has(f.filename)) throw invalidRequest(`files[${i}].filename: duplicate '${f.filename}'`);
    seen.add(f.filename);
  }
  const latest = latestCompletedManifest(ctx.db, projectId);
  const previous = latest ? parseManifest(latest) : [];
  const byPath = new Map(previous.map((p, i) => [p.relativePath, i]));
  const byName = new Map<string, number[]>();
  previous.forEach((p, i) => byName.set(p.filename, [...(byName.get(p.filename) ?? []), i]));
  const matched = new Set<number>();
  const result: RescanResult = { changed: [], added: [], deleted: [], unchanged: [] };
  // Exact paths first, so a bare filename never steals the file another entry names by path.
  const pending: { filename: string; hash: string }[] = [];
  const compare = (f: { filename: string; hash: string }, i: number) => {
    matched.add(i);
    (previous[i].contentHash === f.hash ? result.unchanged : result.changed).push(f.filename);
  };
  const order = new Map(files.map((f, i) => [f.filename, i]));
  for (const f of files) {
    const hash = f.contentHash.toLowerCase();
    const i = byPath.get(f.filename);
    if (i !== undefined) compare({ filename: f.filename, hash }, i);
    else pending.push({ filename: f.filename, hash });
  }
  for (const f of pending) {
    const i = (byName.get(f.filename) ?? []).find((k) => !matched.has(k));
    if (i !== undefined) compare(f, i);
    else result.added.push(f.filename);
  }
  const byRequest = (a: string, b: string) => order.get(a)! - order.get(b)!;
  result.changed.sort(byRequest);
  result.unchanged.sort(byRequest);
  result.added.sort(byRequest);
  result.deleted = previous.filter((_, i) => !matched.has(i)).map((p) => p.relativePath);
  return result;
}
