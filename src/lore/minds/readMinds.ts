import type { ServiceContext } from "../../core/context.ts";
import { parseJsonColumn } from "../../core/json.ts";
import { groupBy } from "../sqlList.ts";
import { knowledgeTagPairs, mindRows, projectConditionalKnowledge } from "./mindStore.ts";
import { relationshipCountsByMind } from "../relationships/relationshipStore.ts";
import { documentsTagged } from "../documents/documentListStore.ts";
import { MICRO_PER_CREDIT } from "../../projects/defaults.ts";
import { personaFields, type Persona } from "./personaFields.ts";
import { effectiveResponseConfig, type ResponseConfig, type StoredResponseConfig } from "./responseConfig.ts";

export interface MindView extends Persona {
  id: string;
  locationId: string | null;
  location: { id: string; name: string } | null;
  knowledgeTags: string[];
  /** conditional knowledge: tags that open only while their condition holds (the admin API's view only) */
  knowledge?: { tag: string; when: string }[];
  knowledgeDescription: string;
  computedFilter: { tags: string[]; documentCount: number; chunkCount: number };
  responseConfig: ResponseConfig;
  buildCreditsUsed: number;
  interactionCount: number;
  relationshipCount: number;
  createdAt: string;
  updatedAt: string;
}

/**
 * Entity Minds of a project in the spec's shape. With `onlyWithTags` (the
 * GET /lore/minds rule) minds without knowledge tags are left out (a mind known
 * only conditionally has none in the spec's terms: its `knowledgeTags` would be
 * empty). With `knowledge`, each mind's conditional knowledge too (the admin
 * API's view; the spec's shape has no such field).
 */
export function readMinds(
  ctx: ServiceContext,
  projectId: string,
  opts: { onlyWithTags?: boolean; ids?: string[]; knowledge?: boolean } = {},
): MindView[] {
  const rows = mindRows(ctx.db, projectId, opts.ids);
  if (rows.length === 0) return [];
  const tagsByMind = groupBy(knowledgeTagPairs(ctx.db, projectId), (r) => r.mind_id);
  const conditionalByMind = groupBy(projectConditionalKnowledge(ctx.db, projectId), (r) => r.mind_id);
  const relCount = relationshipCountsByMind(ctx.db, projectId);

  const views: MindView[] = [];
  for (const r of rows) {
    const knowledgeTags = (tagsByMind.get(r.id) ?? []).map((t) => t.name);
    const knowledge = (conditionalByMind.get(r.id) ?? []).map((k) => ({ tag: k.tag, when: k.when }));
    if (opts.onlyWithTags && knowledgeTags.length === 0) continue;
    const filter = computeFilter(ctx, projectId, knowledgeTags);
    views.push({
      id: r.id,
      ...personaFields(r),
      locationId: r.location_id,
      location: r.location_id ? { id: r.location_id, name: r.location_name ?? "" } : null,
      knowledgeTags,
      ...(opts.knowledge ? { knowledge } : {}),
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
  const docs = documentsTagged(ctx.db, projectId, tagNames);
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
