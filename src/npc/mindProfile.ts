import type { ServiceContext } from "../core/context.ts";
import { ApiError } from "../core/errors.ts";
import { parseJsonColumn } from "../core/json.ts";
import { personaFields, type Persona, type PersonaRow } from "../lore/minds/personaFields.ts";
import { effectiveResponseConfig, type ResponseConfig, type StoredResponseConfig } from "../lore/minds/responseConfig.ts";
import { inverseOf, isBuiltInType } from "../lore/relationships/builtInTypes.ts";

export interface MindProfile extends Persona {
  id: string;
  projectId: string;
  knowledgeDescription: string | null;
  location: { name: string; description: string | null } | null;
  knowledgeTags: string[];
  responseConfig: ResponseConfig;
  /** this mind's relationships, each seen from this mind's side */
  relationships: { otherName: string; kind: string; description: string | null }[];
}

interface Row extends PersonaRow {
  id: string;
  project_id: string;
  knowledge_description: string | null;
  response_config: string;
  location_name: string | null;
  location_description: string | null;
}

/**
 * Everything the runtime needs of one Entity Mind, scoped to the caller's
 * project (another project's mind id is simply not found). Lean on purpose:
 * this is on the interact hot path.
 */
export function loadMindProfile(ctx: ServiceContext, projectId: string, mindId: string): MindProfile {
  const r = ctx.db
    .query<Row, [string, string]>(
      `SELECT m.id, m.project_id, m.entity_name, m.personality, m.backstory, m.backstory_summary, m.role, m.speaking_style,
              m.hints, m.restrictions, m.knowledge_description, m.response_config,
              l.name AS location_name, l.description AS location_description
       FROM entity_minds m LEFT JOIN locations l ON l.id = m.location_id
       WHERE m.id = ? AND m.project_id = ?`,
    )
    .get(mindId, projectId);
  if (!r) throw new ApiError(404, "Entity Mind not found");
  const knowledgeTags = ctx.db
    .query<{ name: string }, [string]>(
      "SELECT t.name FROM mind_knowledge_tags mk JOIN tags t ON t.id = mk.tag_id WHERE mk.mind_id = ? ORDER BY t.name",
    )
    .all(mindId)
    .map((t) => t.name);
  const rels = ctx.db
    .query<
      { from_mind_id: string; type: string | null; ct_name: string | null; ct_symmetric: number | null; inv_name: string | null; description: string | null; from_name: string; to_name: string },
      [string, string, string]
    >(
      `SELECT r.from_mind_id, r.type, ct.name AS ct_name, ct.is_symmetric AS ct_symmetric, inv.name AS inv_name, r.description,
              f.entity_name AS from_name, t.entity_name AS to_name
       FROM relationships r
       JOIN entity_minds f ON f.id = r.from_mind_id JOIN entity_minds t ON t.id = r.to_mind_id
       LEFT JOIN relationship_types ct ON ct.id = r.custom_type_id
       LEFT JOIN relationship_types inv ON inv.id = ct.inverse_type_id
       WHERE r.project_id = ? AND (r.from_mind_id = ? OR r.to_mind_id = ?)
       ORDER BY r.created_at, r.id LIMIT 50`,
    )
    .all(projectId, mindId, mindId);
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
    responseConfig: effectiveResponseConfig(parseJsonColumn<StoredResponseConfig>(r.response_config, {})),
    relationships,
  };
}
