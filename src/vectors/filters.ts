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

export function idsFilter(ids: readonly string[]): string {
  if (!ids.length) throw new Error("idsFilter needs at least one id");
  return `id IN (${ids.map(sqlString).join(", ")})`;
}
