import { nowIso, type ServiceContext } from "../core/context.ts";
import { readSettings, updateSettings } from "../projects/settings.ts";
import type { Plan } from "./resolvePack.ts";

const same = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Writes a resolved plan. The caller holds the write transaction; rows whose
 * values did not change are not touched (their updated_at stays), so
 * re-importing an unchanged pack writes nothing.
 */
export function writePlan(ctx: ServiceContext, projectId: string, plan: Plan): void {
  const db = ctx.db;
  const now = nowIso(ctx);
  // Locations name documents and documents name locations (and types name types):
  // checking foreign keys at commit lets each table be written in one pass.
  db.exec("PRAGMA defer_foreign_keys = ON");

  if (plan.settings && Object.keys(plan.settings).length) {
    const cur = readSettings(ctx, projectId) as unknown as Record<string, unknown>;
    if (Object.entries(plan.settings).some(([k, v]) => cur[k] !== v)) updateSettings(ctx, projectId, plan.settings);
  }

  for (const t of plan.tags) {
    if (!t.existing) {
      db.query("INSERT INTO tags (id, project_id, name, color, is_default, created_at, updated_at) VALUES (?, ?, ?, ?, 0, ?, ?)")
        .run(t.id, projectId, t.name, t.color, now, now);
    } else if (t.existing.color !== t.color) {
      db.query("UPDATE tags SET color = ?, updated_at = ? WHERE id = ?").run(t.color, now, t.id);
    }
  }

  // Names are unique per project and a pack may swap two types' names: park the renamed ones first.
  for (const t of plan.types) {
    if (t.existing && t.existing.name !== t.name) db.query("UPDATE relationship_types SET name = ? WHERE id = ?").run(`\u0000${t.id}`, t.id);
  }
  for (const t of plan.types) {
    const cols = [
      t.key, t.name, t.description, t.color, t.isSymmetric ? 1 : 0, t.inverseTypeId,
      JSON.stringify(t.conflictsWithBuiltIn), JSON.stringify(t.conflictsWithCustom),
    ] as const;
    const e = t.existing;
    if (!e) {
      db.query(
        `INSERT INTO relationship_types (key, name, description, color, is_symmetric, inverse_type_id, conflicts_with_built_in,
           conflicts_with_custom, id, project_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(...cols, t.id, projectId, now, now);
    } else if (e.name !== t.name || !same([e.key, e.name, e.description, e.color, e.isSymmetric ? 1 : 0, e.inverseTypeId, e.conflictsWithBuiltIn, e.conflictsWithCustom] as string[], [...cols] as string[])) {
      db.query(
        `UPDATE relationship_types SET key = ?, name = ?, description = ?, color = ?, is_symmetric = ?, inverse_type_id = ?,
           conflicts_with_built_in = ?, conflicts_with_custom = ?, updated_at = ? WHERE id = ?`,
      ).run(...cols, now, t.id);
    }
  }

  for (const l of plan.locations) {
    const cols = [l.key, l.name, l.description, l.documentId] as const;
    const e = l.existing;
    if (!e) {
      db.query("INSERT INTO locations (key, name, description, document_id, id, project_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        .run(...cols, l.id, projectId, now, now);
    } else if (!same([e.key, e.name, e.description, e.documentId] as string[], [...cols] as string[])) {
      db.query("UPDATE locations SET key = ?, name = ?, description = ?, document_id = ?, updated_at = ? WHERE id = ?").run(...cols, now, l.id);
    }
  }

  const setTags = (table: "document_tags" | "mind_knowledge_tags", column: "document_id" | "mind_id", id: string, tagIds: string[]) => {
    db.query(`DELETE FROM ${table} WHERE ${column} = ?`).run(id);
    const ins = db.query(`INSERT INTO ${table} (${column}, tag_id) VALUES (?, ?)`);
    for (const t of tagIds) ins.run(id, t);
  };

  for (const d of plan.documents) {
    const e = d.existing;
    if (!e) {
      // PENDING: the server's indexer chunks and embeds it (DESIGN.md "Operating it").
      db.query(
        `INSERT INTO documents (id, project_id, key, name, content, status, location_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, 'PENDING', ?, ?, ?)`,
      ).run(d.id, projectId, d.key, d.name, d.content, d.locationId, now, now);
      setTags("document_tags", "document_id", d.id, d.tagIds);
      continue;
    }
    // Same rule as updateDocument: a change of what the chunks hold (text, name, tags, location) re-indexes.
    const reindex = e.content !== d.content || e.name !== d.name || e.locationId !== d.locationId || !same(e.tagIds, d.tagIds);
    if (reindex) {
      db.query(
        `UPDATE documents SET key = ?, name = ?, content = ?, location_id = ?, status = 'PENDING',
           index_version = index_version + 1, updated_at = ? WHERE id = ?`,
      ).run(d.key, d.name, d.content, d.locationId, now, d.id);
      if (!same(e.tagIds, d.tagIds)) setTags("document_tags", "document_id", d.id, d.tagIds);
    } else if (e.key !== d.key) {
      db.query("UPDATE documents SET key = ?, updated_at = ? WHERE id = ?").run(d.key, now, d.id);
    }
  }

  for (const m of plan.minds) {
    const cols = [
      m.key, m.entityName, m.personality, m.backstory, m.backstorySummary, m.role, m.speakingStyle,
      JSON.stringify(m.hints), JSON.stringify(m.restrictions), m.locationId, m.knowledgeDescription, JSON.stringify(m.responseConfig),
    ] as const;
    const e = m.existing;
    if (!e) {
      db.query(
        `INSERT INTO entity_minds (key, entity_name, personality, backstory, backstory_summary, role, speaking_style, hints,
           restrictions, location_id, knowledge_description, response_config, id, project_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(...cols, m.id, projectId, now, now);
      setTags("mind_knowledge_tags", "mind_id", m.id, m.tagIds);
      continue;
    }
    const before = [
      e.key, e.entityName, e.personality, e.backstory, e.backstorySummary, e.role, e.speakingStyle,
      e.hints, e.restrictions, e.locationId, e.knowledgeDescription, e.responseConfig,
    ] as string[];
    const tagsChanged = !same(e.tagIds, m.tagIds);
    if (tagsChanged || !same(before, [...cols] as string[])) {
      db.query(
        `UPDATE entity_minds SET key = ?, entity_name = ?, personality = ?, backstory = ?, backstory_summary = ?, role = ?,
           speaking_style = ?, hints = ?, restrictions = ?, location_id = ?, knowledge_description = ?, response_config = ?,
           updated_at = ? WHERE id = ?`,
      ).run(...cols, now, m.id);
      if (tagsChanged) setTags("mind_knowledge_tags", "mind_id", m.id, m.tagIds);
    }
  }

  for (const r of plan.relationships) {
    const cols = [r.key, r.type, r.customTypeId, r.description, r.fromId, r.toId] as const;
    const e = r.existing;
    if (!e) {
      db.query(
        `INSERT INTO relationships (key, type, custom_type_id, description, from_mind_id, to_mind_id, id, project_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(...cols, r.id, projectId, now, now);
    } else if (!same([e.key, e.type, e.customTypeId, e.description, e.fromId, e.toId] as string[], [...cols] as string[])) {
      db.query(
        `UPDATE relationships SET key = ?, type = ?, custom_type_id = ?, description = ?, from_mind_id = ?, to_mind_id = ?, updated_at = ?
         WHERE id = ?`,
      ).run(...cols, now, r.id);
    }
  }
}
