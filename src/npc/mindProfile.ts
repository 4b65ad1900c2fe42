import type { ServiceContext } from "../core/context.ts";
import { ApiError } from "../core/errors.ts";
import { parseJsonColumn } from "../core/json.ts";
import { personaFields, type Persona } from "../lore/minds/personaFields.ts";
import { conditionalKnowledge, knowledgeTagNames, mindProfileRow } from "../lore/minds/mindStore.ts";
import { relationshipsOfMind } from "../lore/relationships/relationshipStore.ts";
import { effectiveResponseConfig, type ResponseConfig, type StoredResponseConfig } from "../lore/minds/responseConfig.ts";
import { inverseOf, isBuiltInType } from "../lore/relationships/builtInTypes.ts";

export interface MindProfile extends Persona {
  id: string;
  projectId: string;
  knowledgeDescription: string | null;
  location: { name: string; description: string | null } | null;
  /** tags the mind always knows */
  knowledgeTags: string[];
  /** tags the mind knows only while a condition holds (the turn's scope decides) */
  knowledge: { tag: string; when: string }[];
  responseConfig: ResponseConfig;
  /** this mind's relationships, each seen from this mind's side */
  relationships: { otherName: string; kind: string; description: string | null }[];
}

/**
 * Everything the runtime needs of one Entity Mind, scoped to the caller's
 * project (another project's mind id is simply not found). Lean on purpose:
 * this is on the interact hot path.
 */
/** Whether the mind has any knowledge tag configured, always or conditionally known. */
export function hasKnowledge(mind: Pick<MindProfile, "knowledgeTags" | "knowledge">): boolean {
  return mind.knowledgeTags.length > 0 || mind.knowledge.length > 0;
}

export function loadMindProfile(ctx: ServiceContext, projectId: string, mindId: string): MindProfile {
  const r = mindProfileRow(ctx.db, projectId, mindId);
  if (!r) throw new ApiError(404, "Entity Mind not found");
  const knowledgeTags = knowledgeTagNames(ctx.db, mindId);
  const rels = relationshipsOfMind(ctx.db, projectId, mindId, 50);
  const relationships = rels.map((x) => {
    const outgoing = x.from_mind_id === mindId;
    let kind: string;
    if (x.type) kind = outgoing || !isBuiltInType(x.type) ? x.type : inverseOf(x.type);
    else kind = outgoing || x.ct_symmetric ? (x.ct_name ?? "related") : x.inv_name ? x.inv_name : `${x.ct_name} (as seen by them)`;
    return { otherName: outgoing ? x.to_name : x.from_name, kind, description: x.description };
  });
  return {
    id: r.id,
    projectId: r.project_id,
    ...personaFields(r),
    knowledgeDescription: r.knowledge_description,
    location: r.location_name ? { name: r.location_name, description: r.location_description } : null,
    knowledgeTags,
    knowledge: conditionalKnowledge(ctx.db, mindId),
    responseConfig: effectiveResponseConfig(parseJsonColumn<StoredResponseConfig>(r.response_config, {})),
    relationships,
  };
}
