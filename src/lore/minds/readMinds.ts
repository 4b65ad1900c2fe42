import type { ServiceContext } from "../../core/context.ts";
import { parseJsonColumn } from "../../core/json.ts";
import { groupBy, placeholders } from "../sqlList.ts";
import { MICRO_PER_CREDIT } from "../../projects/defaults.ts";
import { personaFields, type Persona, type PersonaRow } from "./personaFields.ts";
import { effectiveResponseConfig, type ResponseConfig, type StoredResponseConfig } from "./responseConfig.ts";

export interface MindView extends Persona {
  id: string;
  locationId: string | null;
  location: { id: string; name: string } | null;
  knowledgeTags: string[];
  knowledgeDescription: string;
  computedFilter: { tags: string[]; documentCount: number; chunkCount: number };
  responseConfig: ResponseConfig;
  buildCreditsUsed: number;
  interactionCount: number;
  relationshipCount: number;
  createdAt: string;
  updatedAt: string;
}

interface MindRow extends PersonaRow {
  id: string;
  key: string | null;
  location_id: string | null;
  location_name: string | null;
  knowledge_description: string | null;
  response_config: string;
  build_credits_used: number;
  interaction_count: number;
  created_at: string;
  updated_at: string;
}

const MIND_SELECT = `
  SELECT m.*, l.name AS location_name
  FROM entity_minds m LEFT JOIN locations l ON l.id = m.location_id`;

/**
 * Entity Minds of a project in the spec's shape. With `onlyWithTags` (the
 * GET /lore/minds rule) minds without knowledge tags are left out.
 */
export function readMinds(
  ctx: ServiceContext,
  projectId: string,
  opts: { onlyWithTags?: boolean; ids?: string[] } = {},
): MindView[] {
  const params: string[] = [projectId];
  let where = "m.project_id = ?";
  if (opts.ids) {
    if (opts.ids.length === 0) return [];
    where += ` AND m.id IN (${placeholders(opts.ids.length)})`;
    params.push(...opts.ids);
  }
  const rows = ctx.db
    .query<MindRow, string[]>(`${MIND_SELECT} WHERE ${where} ORDER BY m.entity_name COLLATE NOCASE, m.id`)
    .all(...params);
  if (rows.length === 0) return [];

  const tagRows = ctx.db
    .query<{ mind_id: string; name: string }, [string]>(
      `SELECT mk.mind_id, t.name FROM mind_knowledge_tags mk JOIN tags t ON t.id = mk.tag_id
       WHERE t.project_id = ? ORDER BY t.name`,
    )
    .all(projectId);
  const tagsByMind = groupBy(tagRows, (r) => r.mind_id);

  const relRows = ctx.db
    .query<{ mind_id: string; n: number }, [string, string]>(
      `SELECT mind_id, SUM(n) AS n FROM (
         SELECT from_mind_id AS mind_id, COUNT(*) AS n FROM relationships WHERE project_id = ? GROUP BY from_mind_id
         UNION ALL
         SELECT to_mind_id AS mind_id, COUNT(*) AS n FROM relationships WHERE project_id = ? AND to_mind_id <> from_mind_id GROUP BY to_mind_id
       ) GROUP BY mind_id`,
    )
    .all(projectId, projectId);
  const relCount = new Map(relRows.map((r) => [r.mind_id, r.n]));

  const views: MindView[] = [];
  for (const r of rows) {
    const knowledgeTags = (tagsByMind.get(r.id) ?? []).map((t) => t.name);
    if (opts.onlyWithTags && knowledgeTags.length === 0) continue;
    const filter = computeFilter(ctx, projectId, knowledgeTags);
    views.push({
      id: r.id,
      ...personaFields(r),
      locationId: r.location_id,
      location: r.location_id ? { id: r.location_id, name: r.location_name ?? "" } : null,
      knowledgeTags,
      knowledgeDescription: r.knowledge_description?.trim() || describeKnowledge(knowledgeTags, filter.documentNames),
      computedFilter: { tags: knowledgeTags, documentCount: filter.documentCount, chunkCount: filter.chunkCount },
      responseConfig: effectiveResponseConfig(parseJsonColumn<StoredResponseConfig>(r.response_config, {})),
      buildCreditsUsed: r.build_credits_used / MICRO_PER_CREDIT,
      interactionCount: r.interaction_count,
      relationshipCount: relCount.get(r.id) ?? 0,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
    });
  }
  return views;
}

/** The effective lore filter of a set of knowledge tags: how much lore it opens. */
function computeFilter(
  ctx: ServiceContext,
  projectId: string,
  tagNames: string[],
): { documentCount: number; chunkCount: number; documentNames: string[] } {
  if (tagNames.length === 0) return { documentCount: 0, chunkCount: 0, documentNames: [] };
  const docs = ctx.db
    .query<{ name: string; chunk_count: number }, string[]>(
      `SELECT DISTINCT d.id, d.name, d.chunk_count FROM documents d
       JOIN document_tags dt ON dt.document_id = d.id JOIN tags t ON t.id = dt.tag_id
       WHERE d.project_id = ? AND t.name IN (${placeholders(tagNames.length)})
       ORDER BY d.name`,
    )
    .all(projectId, ...tagNames);
  return {
    documentCount: docs.length,
    chunkCount: docs.reduce((n, d) => n + d.chunk_count, 0),
    documentNames: docs.map((d) => d.name),
  };
}

/** The knowledge sentence generated when the author wrote none. */
export function describeKnowledge(tags: string[], documentNames: string[]): string {
  if (tags.length === 0) return "Knows nothing beyond their own personality.";
  const tagText = tags.join(", ");
  if (documentNames.length === 0) return `Knows about ${tagText}.`;
  const shown = documentNames.slice(0, 3).join("; ");
  const more = documentNames.length > 3 ? ` and ${documentNames.length - 3} more` : "";
  return `Knows about ${tagText} (${documentNames.length} document${documentNames.length === 1 ? "" : "s"}: ${shown}${more}).`;
}
