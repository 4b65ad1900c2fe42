import { newId } from "../../core/ids.ts";
import { nowIso } from "../../core/context.ts";
import { writeTx } from "../../db/openDatabase.ts";
import { Mutex } from "../../vectors/Mutex.ts";
import { normaliseMemoryText } from "./memoryText.ts";
import { insertMemoryRow, memoryExists, memoryInScope, scopeMemories, toVectorRow, updateMemoryRow } from "./memoryRows.ts";
import { sanitiseDrafts, unionTopics } from "./sanitiseDrafts.ts";
import { MAX_STORED_TOPICS, type Memory, type MemoryContext, type MemoryDraft, type MemoryScope } from "./types.ts";

/**
 * Cosine similarity at or above which a draft is the same memory as a stored one.
 * Conservative on purpose: merging keeps only the newer text, so two distinct
 * facts must never merge. With the built-in hashing embedder a rewording that
 * adds or drops a word or two of a sentence scores ~0.9–0.97, while "name is
 * Ada" vs "name is Bram" scores ~0.77 and "likes" vs "hates" ~0.70; a sentence
 * embedder scores true paraphrases ≥ 0.9 too.
 */
export const MERGE_SIMILARITY = 0.9;

/** Stored memories compared by vector with each draft. */
const MERGE_CANDIDATES = 5;

// One store at a time per (project, mind, player): a draft must see the memories the
// previous one wrote (its merge target may be a memory created a moment ago).
const scopeLocks = new Map<string, { mutex: Mutex; users: number }>();

async function withScopeLock<T>(s: MemoryScope, fn: () => Promise<T>): Promise<T> {
  const key = JSON.stringify([s.projectId, s.mindId, s.playerId]);
  let entry = scopeLocks.get(key);
  if (!entry) scopeLocks.set(key, (entry = { mutex: new Mutex(), users: 0 }));
  entry.users++;
  try {
    return await entry.mutex.run(fn);
  } finally {
    if (--entry.users === 0) scopeLocks.delete(key);
  }
}

/**
 * Stores a session's memories (SQLite, then the LanceDB copy). A draft that is
 * a near-duplicate of a memory of the same (project, mind, player), by
 * normalised-text equality or a vector similarity ≥ MERGE_SIMILARITY, merges
 * into it: the newer text is kept, importance = max, topics = union (oldest
 * first, at most 16), updatedAt bumped, id and createdAt unchanged. Drafts are
 * sanitised first (clamped, deduplicated). Returns each stored or merged memory
 * once, in the order first touched. A LanceDB failure is thrown after the
 * SQLite rows are written (the memory then exists without a vector: default
 * retrieval still finds it).
 *
 * `opts.stillWanted` is asked inside each write transaction: false (the summary's player was erased meanwhile)
 * writes nothing more and returns []. `opts.done` runs inside the transaction of the last write, or alone
 * when no draft is left: a pending summary is deleted there, so it is gone exactly when its memories are stored.
 */
export async function storeMemories(
  ctx: MemoryContext,
  input: { projectId: string; mindId: string; playerId: string; drafts: MemoryDraft[] },
  opts: { stillWanted?: () => boolean; done?: () => void } = {},
): Promise<Memory[]> {
  const drafts = sanitiseDrafts(input.drafts, Number.POSITIVE_INFINITY);
  const wanted = opts.stillWanted ?? (() => true);
  if (!drafts.length) {
    if (opts.done) writeTx(ctx.db, () => wanted() && opts.done!());
    return [];
  }
  const scope: MemoryScope = { projectId: input.projectId, mindId: input.mindId, playerId: input.playerId };
  return withScopeLock(scope, async () => {
    const touched = new Map<string, Memory>();
    for (const [i, draft] of drafts.entries()) {
      const targetId = await findDuplicate(ctx, scope, draft);
      const stored = writeTx(ctx.db, () => {
        if (!wanted()) return null;
        const m = writeDraft(ctx, scope, draft, targetId);
        if (i === drafts.length - 1) opts.done?.();
        return m;
      });
      // Erased while this store ran: the erase took the memories written so far with it.
      if (!stored) return [];
      // a draft that merged into an existing memory keeps its id (its vector is replaced); any other is new
      await ctx.vectors.upsertMemories([toVectorRow(scope.projectId, stored)], { fresh: stored.id !== targetId });
      // An erase may have deleted the row while the vector was being written (its
      // purge may already have run): never leave a vector without its row.
      if (!memoryExists(ctx.db, stored.id)) {
        await ctx.vectors.deleteMemories({ projectId: scope.projectId, ids: [stored.id] });
        touched.delete(stored.id);
        continue;
      }
      touched.set(stored.id, stored); // an existing key keeps its place: order is first touched
    }
    return [...touched.values()];
  });
}

/** The id of the stored memory `draft` duplicates, or null. */
async function findDuplicate(ctx: MemoryContext, s: MemoryScope, draft: MemoryDraft): Promise<string | null> {
  const key = normaliseMemoryText(draft.text);
  const existing = scopeMemories(ctx.db, s);
  const same = existing.find((m) => normaliseMemoryText(m.text) === key);
  if (same) return same.id;
  if (!existing.length) return null;
  const live = new Set(existing.map((m) => m.id));
  const hits = await ctx.vectors.searchMemories({
    projectId: s.projectId,
    entityMindId: s.mindId,
    playerId: s.playerId,
    query: draft.text,
    k: MERGE_CANDIDATES,
  });
  // Only hits whose SQLite row still exists; best score first, ties by id.
  const best = hits
    .filter((h) => live.has(h.id) && h.score >= MERGE_SIMILARITY)
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))[0];
  return best?.id ?? null;
}

/** Inside a write transaction: merges into `targetId` if it still exists, else inserts. */
function writeDraft(ctx: MemoryContext, s: MemoryScope, draft: MemoryDraft, targetId: string | null): Memory {
  const now = nowIso(ctx);
  const target = targetId ? memoryInScope(ctx.db, s, targetId) : null;
  if (target) {
    const merged: Memory = {
      ...target,
      text: draft.text,
      importance: Math.max(target.importance, draft.importance),
      topics: unionTopics(target.topics, draft.topics, MAX_STORED_TOPICS),
      updatedAt: now,
    };
    updateMemoryRow(ctx.db, merged);
    return merged;
  }
  const m: Memory = {
    id: newId("mem"),
    text: draft.text,
    importance: draft.importance,
    topics: draft.topics,
    createdAt: now,
    updatedAt: now,
    entityMindId: s.mindId,
    playerId: s.playerId,
  };
  insertMemoryRow(ctx.db, s.projectId, m);
  return m;
}
