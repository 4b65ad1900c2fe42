import { ManualClock } from "../../src/core/clock.ts";
import type { ServiceContext } from "../../src/core/context.ts";
import { openDatabase } from "../../src/db/openDatabase.ts";
import { isApiError } from "../../src/core/errors.ts";

export const DEMO_PACK = new URL("../../examples/thornhaven.yaml", import.meta.url).pathname;
export const DEMO_FOLDER = new URL("../../examples/markdown-lore", import.meta.url).pathname;

export type TestCtx = ServiceContext & { clock: ManualClock };

/** A fresh in-memory ledger with every migration applied. */
export function newCtx(): TestCtx {
  return { db: openDatabase(":memory:"), clock: new ManualClock() };
}

const TABLES = [
  "teams", "projects", "project_settings", "tags", "documents", "document_tags", "locations",
  "entity_minds", "mind_knowledge_tags", "relationship_types", "relationships",
];

/** Every row of every table a pack can touch, for "nothing was written" checks. */
export function dumpDb(ctx: ServiceContext): string {
  return JSON.stringify(TABLES.map((t) => ctx.db.query(`SELECT * FROM ${t} ORDER BY rowid`).all()));
}

export function countRows(ctx: ServiceContext, projectId: string): Record<string, number> {
  const n = (sql: string) => (ctx.db.query(sql).get(projectId) as { n: number }).n;
  return {
    tags: n("SELECT COUNT(*) AS n FROM tags WHERE project_id = ?"),
    locations: n("SELECT COUNT(*) AS n FROM locations WHERE project_id = ?"),
    documents: n("SELECT COUNT(*) AS n FROM documents WHERE project_id = ?"),
    documentTags: n("SELECT COUNT(*) AS n FROM document_tags dt JOIN documents d ON d.id = dt.document_id WHERE d.project_id = ?"),
    minds: n("SELECT COUNT(*) AS n FROM entity_minds WHERE project_id = ?"),
    mindTags: n("SELECT COUNT(*) AS n FROM mind_knowledge_tags mk JOIN entity_minds m ON m.id = mk.mind_id WHERE m.project_id = ?"),
    relationshipTypes: n("SELECT COUNT(*) AS n FROM relationship_types WHERE project_id = ?"),
    relationships: n("SELECT COUNT(*) AS n FROM relationships WHERE project_id = ?"),
  };
}

export function statusOf(ctx: ServiceContext, documentId: string): string {
  return (ctx.db.query("SELECT status FROM documents WHERE id = ?").get(documentId) as { status: string }).status;
}

/** Runs fn, which must throw an ApiError; returns it. */
export async function apiErrorOf(fn: () => unknown): Promise<{ status: number; error: string; details: string[] }> {
  try {
    await fn();
  } catch (e) {
    if (!isApiError(e)) throw e;
    return { status: e.status, error: e.error, details: (e.extra.details as string[]) ?? [] };
  }
  throw new Error("expected an ApiError, got none");
}
