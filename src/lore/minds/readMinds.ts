import type { ServiceContext } from "../../core/context.ts";
import { parseJsonColumn } from "../../core/json.ts";
import { groupBy } from "../sqlList.ts";
import { knowledgeTagPairs, mindRows, projectConditionalKnowledge } from "./mindStore.ts";
import { relationshipCountsByMind } from "../relationships/relationshipStore.ts";
import { TagFilterIndex } from "./tagFilterIndex.ts";
import { MICRO_PER_CREDIT } from "../../projects/defaults.ts";
import { personaFields, splitLines, type Persona } from "./personaFields.ts";
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
 * API's view; the spec's shape has no such field) and hints and restrictions as authored, conditional
 * ones `{text, when}` included; without it only the plain lines, the spec's `string[]`.
 */
export function readMinds(
  ctx: ServiceContext,
  projectId: string,
  opts: { onlyWithTags?: boolean; ids?: string[]; knowledge?: boolean } = {},
): MindView[] {
  return [...mindViews(ctx, projectId, opts)];
}

/**
 * readMinds one mind at a time: every row is read up front (one consistent view of the project), each
 * mind's view is built when asked for, so a long list can be written out as it is built.
 */
export function* mindViews(
  ctx: ServiceContext,
  projectId: string,
  opts: { onlyWithTags?: boolean; ids?: string[]; knowledge?: boolean } = {},
): Generator<MindView> {
  const rows = mindRows(ctx.db, projectId, opts.ids);
  if (rows.length === 0) return;
  const tagsByMind = groupBy(knowledgeTagPairs(ctx.db, projectId), (r) => r.mind_id);
  const conditionalByMind = groupBy(projectConditionalKnowledge(ctx.db, projectId), (r) => r.mind_id);
  const relCount = relationshipCountsByMind(ctx.db, projectId);
  const filters = TagFilterIndex.forMinds(ctx.db, projectId, rows.length);

  for (const r of rows) {
    const knowledgeTags = (tagsByMind.get(r.id) ?? []).map((t) => t.name);
    const knowledge = (conditionalByMind.get(r.id) ?? []).map((k) => ({ tag: k.tag, when: k.when }));
    if (opts.onlyWithTags && knowledgeTags.length === 0) continue;
    const filter = filters.filter(knowledgeTags);
    const persona = personaFields(r);
    const plain = splitLines(persona);
    yield {
      id: r.id,
      ...persona,
      ...(opts.knowledge ? {} : { hints: plain.hints, restrictions: plain.restrictions }),
      locationId: r.location_id,
      location: r.location_id ? { id: r.location_id, name: r.location_name ?? "" } : null,
      knowledgeTags,
      ...(opts.knowledge ? { knowledge } : {}),
      knowledgeDescription: r.knowledge_description?.trim() || describeKnowledge(knowledgeTags, filter.firstNames, filter.totalNames),
      computedFilter: { tags: knowledgeTags, documentCount: filter.documentCount, chunkCount: filter.chunkCount },
      responseConfig: effectiveResponseConfig(parseJsonColumn<StoredResponseConfig>(r.response_config, {})),
      buildCreditsUsed: r.build_credits_used / MICRO_PER_CREDIT,
      interactionCount: r.interaction_count,
      relationshipCount: relCount.get(r.id) ?? 0,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
    };
  }
}

/** The knowledge sentence generated when the author wrote none. */
export function describeKnowledge(tags: string[], firstNames: string[], total: number): string {
  if (tags.length === 0) return "Knows nothing beyond their own personality.";
  const tagText = tags.join(", ");
  if (total === 0) return `Knows about ${tagText}.`;
  const shown = firstNames.slice(0, 3).join("; ");
  const more = total > 3 ? ` and ${total - 3} more` : "";
  return `Knows about ${tagText} (${total} document${total === 1 ? "" : "s"}: ${shown}${more}).`;
}
