import { sqlString, sqlStringList } from "./sqlString.ts";

// Every LanceDB filter of the store is built here, from quoted literals only.

/** The knowledge-scoping rule (DESIGN.md "Knowledge scoping"): this project, and at least one of these tags. */
export function loreFilter(projectId: string, tags: readonly string[]): string {
  if (!tags.length) throw new Error("loreFilter needs at least one tag"); // array_has_any(tags, []) would match nothing anyway
  return `projectId = ${sqlString(projectId)} AND array_has_any(tags, ${sqlStringList(tags)})`;
}

export function documentFilter(projectId: string, documentId: string): string {
  return `projectId = ${sqlString(projectId)} AND documentId = ${sqlString(documentId)}`;
}

export function projectFilter(projectId: string): string {
  return `projectId = ${sqlString(projectId)}`;
}

export function memoryFilter(f: { projectId: string; playerId?: string; entityMindId?: string; ids?: readonly string[] }): string {
  const parts = [projectFilter(f.projectId)];
  if (f.entityMindId !== undefined) parts.push(`entityMindId = ${sqlString(f.entityMindId)}`);
  if (f.playerId !== undefined) parts.push(`playerId = ${sqlString(f.playerId)}`);
  if (f.ids !== undefined) parts.push(idsFilter(f.ids));
  return parts.join(" AND ");
}

/**
 * One (mind, player) group's rows, to read the group whole: the project is left out on purpose. Its index lookup
 * returns every row of the project (nearly the whole table on a one-world box), which LanceDB then intersects with
 * the player's few rows: 2× the CPU of this filter at 200,000 memories, and growing with the table
 * (BENCHMARKS.md "Big worlds: the sixth pass"). The caller checks every row's project itself.
 */
export function memoryGroupFilter(entityMindId: string, playerId: string): string {
  return `playerId = ${sqlString(playerId)} AND entityMindId = ${sqlString(entityMindId)}`;
}

export function idsFilter(ids: readonly string[]): string {
  if (!ids.length) throw new Error("idsFilter needs at least one id");
  return `id IN (${ids.map(sqlString).join(", ")})`;
}
