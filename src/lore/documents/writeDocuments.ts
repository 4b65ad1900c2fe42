import { notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { nowIso, type ServiceContext } from "../../core/context.ts";
import { sameMembers } from "../../core/sameMembers.ts";
import { writeTx } from "../../db/openDatabase.ts";
import { resolveTagNames } from "../tags/writeTags.ts";
import { LIMITS, Problems } from "../validate/fields.ts";
import { locationExists } from "../locations/locationStore.ts";
import { deleteDocumentRow, documentValues, gateOf, insertDocumentRow, setDocumentTags, updateDocumentRow, type DocumentValues } from "./documentStore.ts";
import { checkGate, checkReveal } from "./documentGate.ts";

export type { DocumentValues };

export interface DocumentInput {
  key?: unknown;
  name?: unknown;
  content?: unknown;
  tags?: unknown;
  locationId?: unknown;
  when?: unknown;
  sticky?: unknown;
  cooldown?: unknown;
  delay?: unknown;
  secret?: unknown;
  reveal?: unknown;
}

function normalise(ctx: ServiceContext, projectId: string, input: DocumentInput, base?: DocumentValues): DocumentValues {
  const p = new Problems();
  const n: DocumentValues = base ? { ...base } : { key: null, name: "", content: "", tagIds: [], locationId: null };
  if (input.key !== undefined || !base) n.key = p.optionalString("key", input.key, LIMITS.key) ?? null;
  if (input.name !== undefined || !base) n.name = p.requiredString("name", input.name, LIMITS.name) ?? "";
  if (input.content !== undefined || !base) {
    if (typeof input.content !== "string") p.add("content", "required, a string");
    else if (input.content.length > LIMITS.documentContent) p.add("content", `at most ${LIMITS.documentContent} characters`);
    else n.content = input.content;
  }
  if (input.tags !== undefined) {
    const names = p.stringList("tags", input.tags, 200, LIMITS.tagName) ?? [];
    const { ids, missing } = resolveTagNames(ctx, projectId, names);
    for (const m of missing) p.add(`tags[${names.indexOf(m)}]`, `unknown tag '${m}'`);
    n.tagIds = ids;
  }
  if (input.locationId !== undefined) {
    if (input.locationId === null) n.locationId = null;
    else if (typeof input.locationId !== "string" || !locationExists(ctx.db, projectId, input.locationId)) {
      p.add("locationId", "no such location in this project");
    } else n.locationId = input.locationId;
  }
  Object.assign(n, checkGate(ctx, projectId, input, p));
  if (input.secret !== undefined) {
    if (typeof input.secret !== "boolean") p.add("secret", "must be true or false");
    else n.secret = input.secret;
  }
  checkReveal(ctx, projectId, input, n, p);
  p.throwIfAny();
  return n;
}

/** Stores a document as PENDING; the server's indexer chunks and embeds it. */
export function createDocument(ctx: ServiceContext, projectId: string, input: DocumentInput): { id: string } {
  const n = normalise(ctx, projectId, input);
  const id = newId("doc");
  writeTx(ctx.db, () => saveDocument(ctx, projectId, id, n, null));
  return { id };
}

export function insertDocument(ctx: ServiceContext, projectId: string, id: string, n: DocumentValues): void {
  insertDocumentRow(ctx.db, projectId, id, n, nowIso(ctx));
}


/**
 * Writes a document's values, the caller holding the write transaction; the one place both the
 * lore API and lore packs write documents. Without `before` it is inserted as PENDING; otherwise
 * only a change is written (an unchanged document keeps its updated_at), and a change of what its
 * chunks hold (text, name, tags, location) re-queues it for indexing. Returns whether it wrote.
 */
export function saveDocument(ctx: ServiceContext, projectId: string, id: string, n: DocumentValues, before: DocumentValues | null): boolean {
  if (!before) {
    insertDocument(ctx, projectId, id, n);
    return true;
  }
  const tagsChanged = !sameMembers(n.tagIds, before.tagIds);
  const reindex = n.content !== before.content || n.name !== before.name || n.locationId !== before.locationId || tagsChanged;
  // A condition or timer is read at each turn, not indexed: changing it writes the row, no re-index.
  const [g, old] = [gateOf(n), gateOf(before)];
  const gateChanged = g.when !== old.when || g.sticky !== old.sticky || g.cooldown !== old.cooldown || g.delay !== old.delay;
  // Whether it is a secret (and its reveal condition) is read at each turn too (src/npc/secrets), never indexed.
  const secretChanged = !!n.secret !== !!before.secret || (n.reveal ?? null) !== (before.reveal ?? null);
  if (!reindex && !gateChanged && !secretChanged && n.key === before.key) return false;
  updateDocumentRow(ctx.db, id, n, reindex, nowIso(ctx));
  if (tagsChanged) setDocumentTags(ctx.db, id, n.tagIds);
  return true;
}

/** Any edit of content, tags or location re-queues the document for indexing. */
export function updateDocument(ctx: ServiceContext, projectId: string, id: string, input: DocumentInput): { id: string } {
  const base = loadDocumentValues(ctx, projectId, id);
  const n = normalise(ctx, projectId, input, base);
  writeTx(ctx.db, () => saveDocument(ctx, projectId, id, n, base));
  return { id };
}

export function deleteDocument(ctx: ServiceContext, projectId: string, id: string): void {
  if (!deleteDocumentRow(ctx.db, projectId, id)) throw notFound("Document");
}

function loadDocumentValues(ctx: ServiceContext, projectId: string, id: string): DocumentValues {
  const v = documentValues(ctx.db, projectId, id);
  if (!v) throw notFound("Document");
  return v;
}
