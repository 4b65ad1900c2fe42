import { firstColumn, linkedIds, type Db } from "../../db/openDatabase.ts";
import type { Persona, PersonaRow } from "./personaFields.ts";
import { placeholders } from "../sqlList.ts";

/** entity_minds, mind_knowledge_tags and mind_conditional_knowledge: the lore feature owns these tables. */

/** A conditional knowledge entry as stored: a tag that opens only while the condition holds. */
export interface KnowledgeEntry {
  tagId: string;
  when: string;
}

/** A mind as GET /lore/minds reads it. */
export interface MindRow extends PersonaRow {
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

/** What the interact path reads of a mind. */
export interface MindProfileRow extends PersonaRow {
  id: string;
  project_id: string;
  knowledge_description: string | null;
  response_config: string;
  location_name: string | null;
  location_description: string | null;
}

/** The writable columns, JSON lists and responseConfig already serialised, in INSERT order. */
export type MindColumns = (string | null)[];

const MIND_SELECT = `
  SELECT m.*, l.name AS location_name
  FROM entity_minds m LEFT JOIN locations l ON l.id = m.location_id`;

/** The project's minds (or those of `ids`), by name. */
export function mindRows(db: Db, projectId: string, ids?: string[]): MindRow[] {
  const params: string[] = [projectId];
  let where = "m.project_id = ?";
  if (ids) {
    if (ids.length === 0) return [];
    where += ` AND m.id IN (${placeholders(ids.length)})`;
    params.push(...ids);
  }
  return db.query<MindRow, string[]>(`${MIND_SELECT} WHERE ${where} ORDER BY m.entity_name COLLATE NOCASE, m.id`).all(...params);
}

/** Every (mind, knowledge tag name) pair of the project, by tag name. */
export function knowledgeTagPairs(db: Db, projectId: string): { mind_id: string; name: string }[] {
  return db
    .query<{ mind_id: string; name: string }, [string]>(
      `SELECT mk.mind_id, t.name FROM mind_knowledge_tags mk JOIN tags t ON t.id = mk.tag_id
       WHERE t.project_id = ? ORDER BY t.name`,
    )
    .all(projectId);
}

/** The names of one mind's knowledge tags, by name. */
export function knowledgeTagNames(db: Db, mindId: string): string[] {
  return firstColumn(db, "SELECT t.name FROM mind_knowledge_tags mk JOIN tags t ON t.id = mk.tag_id WHERE mk.mind_id = ? ORDER BY t.name", mindId);
}

export function mindProfileRow(db: Db, projectId: string, mindId: string): MindProfileRow | null {
  return db
    .query<MindProfileRow, [string, string]>(
      `SELECT m.id, m.project_id, m.entity_name, m.personality, m.backstory, m.backstory_summary, m.role, m.speaking_style,
              m.hints, m.restrictions, m.knowledge_description, m.response_config,
              l.name AS location_name, l.description AS location_description
       FROM entity_minds m LEFT JOIN locations l ON l.id = m.location_id
       WHERE m.id = ? AND m.project_id = ?`,
    )
    .get(mindId, projectId);
}

export function insertMindRow(db: Db, projectId: string, id: string, cols: MindColumns, at: string): void {
  db.query(
    `INSERT INTO entity_minds (id, project_id, key, entity_name, personality, backstory, backstory_summary, role, speaking_style,
       hints, restrictions, location_id, knowledge_description, response_config, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(id, projectId, ...cols, at, at);
}

export function updateMindRow(db: Db, id: string, cols: MindColumns, at: string): void {
  db.query(
    `UPDATE entity_minds SET key = ?, entity_name = ?, personality = ?, backstory = ?, backstory_summary = ?, role = ?,
       speaking_style = ?, hints = ?, restrictions = ?, location_id = ?, knowledge_description = ?, response_config = ?, updated_at = ?
     WHERE id = ?`,
  ).run(...cols, at, id);
}

/** One mind's conditional knowledge, in authored order, with tag names. */
export function conditionalKnowledge(db: Db, mindId: string): { tag: string; when: string }[] {
  return db
    .query<{ tag: string; when: string }, [string]>(
      `SELECT t.name AS tag, k.when_condition AS "when" FROM mind_conditional_knowledge k JOIN tags t ON t.id = k.tag_id
       WHERE k.mind_id = ? ORDER BY k.position`,
    )
    .all(mindId);
}

/** Every conditional knowledge entry of the project's minds, in authored order. */
export function projectConditionalKnowledge(db: Db, projectId: string): { mind_id: string; tag_id: string; tag: string; when: string }[] {
  return db
    .query<{ mind_id: string; tag_id: string; tag: string; when: string }, [string]>(
      `SELECT k.mind_id, k.tag_id, t.name AS tag, k.when_condition AS "when" FROM mind_conditional_knowledge k
       JOIN entity_minds m ON m.id = k.mind_id JOIN tags t ON t.id = k.tag_id
       WHERE m.project_id = ? ORDER BY k.mind_id, k.position`,
    )
    .all(projectId);
}

export function setMindKnowledge(db: Db, id: string, entries: KnowledgeEntry[]): void {
  db.query("DELETE FROM mind_conditional_knowledge WHERE mind_id = ?").run(id);
  const ins = db.query("INSERT INTO mind_conditional_knowledge (mind_id, position, tag_id, when_condition) VALUES (?, ?, ?, ?)");
  entries.forEach((e, i) => ins.run(id, i, e.tagId, e.when));
}

export function setMindTags(db: Db, id: string, tagIds: string[]): void {
  db.query("DELETE FROM mind_knowledge_tags WHERE mind_id = ?").run(id);
  const ins = db.query("INSERT INTO mind_knowledge_tags (mind_id, tag_id) VALUES (?, ?)");
  for (const t of tagIds) ins.run(id, t);
}

/** false when there was no such mind in the project. */
export function deleteMindRow(db: Db, projectId: string, id: string): boolean {
  return db.query("DELETE FROM entity_minds WHERE id = ? AND project_id = ?").run(id, projectId).changes > 0;
}

/** The raw row, knowledge tag ids and conditional knowledge of one mind. */
export function mindRecord(db: Db, projectId: string, id: string): { row: Record<string, string | null>; tagIds: string[]; knowledge: KnowledgeEntry[] } | null {
  const row = db.query<Record<string, string | null>, [string, string]>("SELECT * FROM entity_minds WHERE id = ? AND project_id = ?").get(id, projectId);
  if (!row) return null;
  const tagIds = firstColumn<string>(db, "SELECT tag_id FROM mind_knowledge_tags WHERE mind_id = ?", id);
  const knowledge = db
    .query<KnowledgeEntry, [string]>(`SELECT tag_id AS tagId, when_condition AS "when" FROM mind_conditional_knowledge WHERE mind_id = ? ORDER BY position`)
    .all(id);
  return { row, tagIds, knowledge };
}

/** One more completed interaction (the spec's interactionCount). */
export function countInteraction(db: Db, mindId: string): void {
  db.query("UPDATE entity_minds SET interaction_count = interaction_count + 1 WHERE id = ?").run(mindId);
}

/** A mind by id or, failing that, by key. */
export function mindIdByIdOrKey(db: Db, projectId: string, idOrKey: string): string | null {
  return (
    db
      .query<{ id: string }, [string, string, string, string]>("SELECT id FROM entity_minds WHERE project_id = ? AND (id = ? OR key = ?) ORDER BY id = ? DESC LIMIT 1")
      .get(projectId, idOrKey, idOrKey, idOrKey)?.id ?? null
  );
}

/** A mind's stored columns as lore packs compare them (JSON columns as text), tag ids sorted. */
export interface StoredMind extends Omit<Persona, "hints" | "restrictions"> {
  id: string;
  key: string | null;
  /** JSON text as stored */
  hints: string;
  restrictions: string;
  locationId: string | null;
  knowledgeDescription: string | null;
  responseConfig: string;
  /** sorted */
  tagIds: string[];
  /** conditional knowledge, in authored order */
  knowledge: KnowledgeEntry[];
}

/** Every mind of the project in creation order (lore packs). */
export function projectMinds(db: Db, projectId: string): StoredMind[] {
  const tagsOf = linkedIds(db, "SELECT mk.mind_id, mk.tag_id FROM mind_knowledge_tags mk JOIN entity_minds m ON m.id = mk.mind_id WHERE m.project_id = ?", projectId);
  const knowledgeOf = new Map<string, KnowledgeEntry[]>();
  for (const k of projectConditionalKnowledge(db, projectId)) {
    const list = knowledgeOf.get(k.mind_id) ?? [];
    list.push({ tagId: k.tag_id, when: k.when });
    knowledgeOf.set(k.mind_id, list);
  }
  return db
    .query<Omit<StoredMind, "tagIds" | "knowledge">, [string]>(
      `SELECT id, key, entity_name AS entityName, personality, backstory, backstory_summary AS backstorySummary, role,
              speaking_style AS speakingStyle, hints, restrictions, location_id AS locationId,
              knowledge_description AS knowledgeDescription, response_config AS responseConfig
       FROM entity_minds WHERE project_id = ? ORDER BY created_at, id`,
    )
    .all(projectId)
    .map((m) => ({ ...m, tagIds: tagsOf.get(m.id) ?? [], knowledge: knowledgeOf.get(m.id) ?? [] }));
}
