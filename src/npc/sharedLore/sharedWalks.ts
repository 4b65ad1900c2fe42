import type { Db } from "../../db/openDatabase.ts";
import { loreRevision } from "../../lore/documents/documentStore.ts";
import { sharedWalk, sharedWalkRows, type SharedChunkRow } from "./sharedLoreStore.ts";

/** Tag sets whose walk is kept per project (~10 KB each at 256 chunks), least recently used out first. */
const KEPT_PER_PROJECT = 2048;
/** Projects whose walks are kept, least recently used out first. */
const KEPT_PROJECTS = 8;

/**
 * Walks kept per database and project, at the lore revision they were made at (migration 034: it moves with every
 * write of one of the project's documents, and chunks and their tags are written only with their document), by the
 * tag set walked. Only the chunk ids are kept: their rows are read again by id.
 */
const kept = new WeakMap<Db, Map<string, { revision: number; walks: Map<string, string[]> }>>();

/**
 * A mind's shared-lore walk (sharedWalk: the project's first chunks in document order that its tags open), from what
 * an earlier walk of the same tags found at the same lore revision when there is one. The walk visits documents
 * until it holds `limit` visible chunks (~1,100 documents, ~6 ms of CPU at 100,000 chunks and 3 tags of 20); reading
 * 256 chunks back by id costs a fraction of it. The rows are those the walk would give: the same revision means no
 * document of the project was written since, so the same chunks are visible in the same order; a chunk missing on
 * the read back (nothing should be) walks again.
 */
export function cachedWalk(db: Db, projectId: string, tags: string[], limit: number): SharedChunkRow[] {
  let byProject = kept.get(db);
  if (!byProject) kept.set(db, (byProject = new Map()));
  // Read before the walk: a write landing in between leaves a walk newer than its revision, walked again next time.
  const revision = loreRevision(db, projectId);
  let project = byProject.get(projectId);
  byProject.delete(projectId);
  if (!project || project.revision !== revision) project = { revision, walks: new Map() };
  byProject.set(projectId, project);
  for (const old of byProject.keys()) {
    if (byProject.size <= KEPT_PROJECTS) break;
    byProject.delete(old);
  }
  const key = `${limit}\u0000${[...new Set(tags)].sort().join("\u0000")}`;
  const ids = project.walks.get(key);
  if (ids) {
    project.walks.delete(key);
    project.walks.set(key, ids);
    const rows = sharedWalkRows(db, projectId, ids);
    if (rows.length === ids.length) return rows;
  }
  const rows = sharedWalk(db, projectId, tags, limit);
  project.walks.set(
    key,
    rows.map((r) => r.id),
  );
  if (project.walks.size > KEPT_PER_PROJECT) project.walks.delete(project.walks.keys().next().value!);
  return rows;
}
