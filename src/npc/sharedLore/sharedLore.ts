import type { AppContext } from "../../core/context.ts";
import { nowIso } from "../../core/context.ts";
import { parseJsonColumn } from "../../core/json.ts";
import type { MindProfile } from "../mindProfile.ts";
import { systemPrompt } from "../prompt/systemPrompt.ts";
import { loreBlocks } from "../prompt/renderTurn.ts";
import type { LoreNote } from "../../retrieval/hybridSearch.ts";
import { LORE_NOTE_OVERHEAD, generationContext, promptBudget, tokenCounter } from "../tokenBudget.ts";
import { hitsOf, readSelection, sharedCandidates, sharedChunksById, totalHits, writeSelection, type SharedChunkRow, type SharedSelection } from "./sharedLoreStore.ts";
import { loreRevision } from "../../lore/documents/documentStore.ts";
import { rechoiceVerdict, rechoiceWait, type RechoiceVerdict } from "./rechoice.ts";
import { cachedWalk } from "./sharedWalks.ts";

/**
 * The shared-lore level of a mind's static prompt. A mind's system prompt is the same for
 * every player, so its KV state is snapshotted once (the mind prefix). The lore a first turn brings
 * in was not: it depended on the player's question and was evaluated anew for every newcomer. This
 * level puts lore every player of the mind shares into the static part, after the system text:
 * all the mind's visible lore when it fits the budget, else its most retrieved chunks (counted per
 * mind). A turn's retrieval then adds only chunks not already there.
 *
 * The selection is kept (mind_shared_lore) so the prompt stays the same from turn to turn and across
 * restarts. It records what it was made from (loreInputs: the project's lore stamp and the mind's tags)
 * and is made again at its next read once that changed — a choice made while documents were still being
 * indexed included, whenever and by whichever process they finish — and whenever a turn finds one of its
 * chunks gone or no longer visible to the mind, so scoping stays exact whatever the timing. From counts
 * alone it is made again rarely (rechoice.ts: the warm job asks, warmMinds.ts).
 */

/** A chunk of the shared level: a turn's lore note without a retrieval score (it was chosen, not retrieved). */
export type SharedNote = Omit<LoreNote, "score"> & { secret?: boolean };

/** Candidates looked at when selecting (the most retrieved first): enough to fill any sane budget. */
const CANDIDATES = 256;
/** The shared level never takes more than this share of the prompt budget (the turn, its lore and history need the rest). */
const MAX_SHARE = 1 / 3;

/** Tokens the shared level may take: `sharedLoreTokens`, at most a third of the prompt budget (of the generation backend's context). 0: off. */
export function sharedLoreBudget(config: AppContext["config"], contextSize = config.contextSize): number {
  const cap = Math.floor(promptBudget(contextSize, config.maxReplyTokens) * MAX_SHARE);
  return Math.max(0, Math.min(config.sharedLoreTokens, cap));
}

type Ctx = Pick<AppContext, "db" | "clock" | "config" | "llm" | "generation">;

/**
 * Selects the mind's shared lore from the current lore and retrieval counts, and stores it (with what it was made from).
 * `candidates`: the mind's candidates as read just before (sharedLoreCandidates), not read again.
 */
export function selectSharedLore(ctx: Ctx, projectId: string, mind: Pick<MindProfile, "id" | "knowledgeTags">, candidates?: SharedChunkRow[]): string[] {
  const chunkIds = chooseSharedLore(ctx, projectId, mind, candidates);
  const sel = { chunkIds, hitsAt: totalHits(ctx.db, projectId, mind.id), loreStamp: loreInputs(ctx, projectId, mind) };
  writeSelection(ctx.db, projectId, mind.id, sel, nowIso(ctx));
  return chunkIds;
}

/**
 * The mind's shared lore as it would be chosen now (nothing stored): the most retrieved chunks the mind
 * may see (by its own tags), greedily while they fit the budget, then put in document order so the
 * prompt reads (and renders) the same whatever the counts' order.
 */
export function chooseSharedLore(ctx: Ctx, projectId: string, mind: Pick<MindProfile, "id" | "knowledgeTags">, candidates?: SharedChunkRow[]): string[] {
  const budget = sharedLoreBudget(ctx.config, generationContext(ctx));
  const count = tokenCounter(ctx);
  const picked: SharedChunkRow[] = [];
  if (budget > 0) {
    let used = 0;
    for (const r of candidates ?? sharedLoreCandidates(ctx, projectId, mind)) {
      const cost = count(r.content) + count(r.document_name) + LORE_NOTE_OVERHEAD;
      if (used + cost > budget) continue;
      picked.push(r);
      used += cost;
    }
  }
  picked.sort(documentOrder);
  return picked.map((r) => r.id);
}

/**
 * Makes every count the mind's choice reads exact: with a remote pool, its candidates' texts through a server's
 * /tokenize (kept, sharedLore's counts then read them), so a choice made ahead and one a turn makes count alike
 * and are the same. False when some count could not be made (no server to ask): a choice now would count by the
 * pool's running estimate. Always true on the local engine (its counts are its tokenizer's).
 */
export async function prepareSharedLoreCounts(
  ctx: Ctx,
  projectId: string,
  mind: Pick<MindProfile, "id" | "knowledgeTags">,
  background = false,
  candidates?: SharedChunkRow[],
): Promise<boolean> {
  const gen = ctx.generation;
  if (!gen || gen.mode === "local" || mind.knowledgeTags.length === 0 || sharedLoreBudget(ctx.config, generationContext(ctx)) === 0) return true;
  const texts: string[] = [];
  for (const r of candidates ?? sharedLoreCandidates(ctx, projectId, mind)) texts.push(r.content, r.document_name);
  return gen.prepareCounts(texts, { background });
}

/** The chunks the mind's choice picks from, most retrieved first, then in document order (the walk kept: sharedWalks.ts). */
export function sharedLoreCandidates(ctx: Pick<AppContext, "db">, projectId: string, mind: Pick<MindProfile, "id" | "knowledgeTags">): SharedChunkRow[] {
  return sharedCandidates(ctx.db, { projectId, mindId: mind.id, tags: mind.knowledgeTags, limit: CANDIDATES }, cachedWalk);
}

/** sharedLoreFor for a turn: a choice the turn has to make (none stored for this lore) counts exactly first. */
export async function sharedLoreForTurn(ctx: Ctx, projectId: string, mind: Pick<MindProfile, "id" | "knowledgeTags">, visible: string[]): Promise<SharedNote[]> {
  if (ctx.generation?.mode !== "remote") return sharedLoreFor(ctx, projectId, mind, visible);
  const stored = { sel: readSelection(ctx.db, projectId, mind.id), stamp: loreInputs(ctx, projectId, mind) };
  // a stored choice that holds is read once; otherwise the counts first, then everything read again after the wait
  if (stored.sel?.loreStamp === stored.stamp) return sharedLoreFor(ctx, projectId, mind, visible, stored);
  await prepareSharedLoreCounts(ctx, projectId, mind);
  return sharedLoreFor(ctx, projectId, mind, visible);
}

/**
 * What a mind's choice is made from, besides counts: the project's lore (its revision moves with every write of
 * a document: added, edited, deleted, finishing indexing) and the mind's knowledge tags.
 */
function loreInputs(ctx: Pick<AppContext, "db">, projectId: string, mind: Pick<MindProfile, "knowledgeTags">): string {
  return `r${loreRevision(ctx.db, projectId)}|${[...mind.knowledgeTags].sort().join(",")}`;
}

/** True when the mind's stored choice was made from other lore (or is missing): its next read makes it again. */
export function sharedLoreOutdated(ctx: Pick<AppContext, "db">, projectId: string, mind: Pick<MindProfile, "id" | "knowledgeTags">): boolean {
  return readSelection(ctx.db, projectId, mind.id)?.loreStamp !== loreInputs(ctx, projectId, mind);
}

/**
 * The warm job's look at the counts (rechoice.ts): chooses the mind's shared lore again when the counts
 * justify it. Returns the verdict ("rechoose": a new choice was stored); "outdated" when the stored choice
 * no longer matches the lore (its next read makes it again, counts or not).
 */
export function rechooseSharedLore(ctx: Ctx, projectId: string, mind: Pick<MindProfile, "id" | "knowledgeTags">): RechoiceVerdict | "outdated" {
  const sel = readSelection(ctx.db, projectId, mind.id);
  if (!sel || sel.loreStamp !== loreInputs(ctx, projectId, mind)) return "outdated";
  const totalHitsNow = totalHits(ctx.db, projectId, mind.id);
  const sinceMs = ctx.clock.now().getTime() - Date.parse(sel.computedAt);
  const wait = rechoiceWait({ totalHits: totalHitsNow, hitsAt: sel.hitsAt, sinceMs });
  if (wait) return wait; // nothing to choose yet
  const candidate = chooseSharedLore(ctx, projectId, mind);
  const hits = hitsOf(ctx.db, projectId, mind.id, [...new Set([...sel.chunkIds, ...candidate])]);
  const verdict = rechoiceVerdict({ current: sel.chunkIds, candidate, hits, totalHits: totalHitsNow, hitsAt: sel.hitsAt, sinceMs });
  if (verdict === "rechoose") writeSelection(ctx.db, projectId, mind.id, { chunkIds: candidate, hitsAt: totalHitsNow, loreStamp: sel.loreStamp }, nowIso(ctx));
  return verdict;
}

/**
 * The mind's shared lore for a turn that sees `visible` tags, or null (off, or nothing to share).
 * The stored selection is checked against SQLite: made from other lore (loreInputs), or a chunk gone,
 * not COMPLETED or no longer within the mind's tags, means the lore changed, and the selection is made
 * again now. A turn narrowed by activeKnowledgeTags gets the level only when every shared chunk is
 * within its visible tags; otherwise it goes without (its prompt then starts with the plain system
 * text): a chunk outside the turn's active tags never reaches its prompt.
 */
export function sharedLoreFor(
  ctx: Ctx,
  projectId: string,
  mind: Pick<MindProfile, "id" | "knowledgeTags">,
  visible: string[],
  /** the stored choice and the lore's stamp as the caller just read them (nothing awaited since) */
  stored?: { sel: SharedSelection | null; stamp: string },
): SharedNote[] {
  if (sharedLoreBudget(ctx.config, generationContext(ctx)) === 0 || mind.knowledgeTags.length === 0) return [];
  const load = (ids: string[]) => {
    const rows = new Map(sharedChunksById(ctx.db, projectId, ids).map((r) => [r.id, r]));
    const out: SharedNote[] = [];
    for (const id of ids) {
      const r = rows.get(id);
      if (!r) return null;
      const tags = parseJsonColumn<string[]>(r.tags, []);
      if (!tags.some((t) => mind.knowledgeTags.includes(t))) return null;
      out.push({ chunkId: r.id, documentId: r.document_id, documentName: r.document_name, chunkIndex: r.chunk_index, text: r.content, tags, ...(r.secret ? { secret: true } : {}) });
    }
    return out;
  };
  const { sel, stamp } = stored ?? { sel: readSelection(ctx.db, projectId, mind.id), stamp: loreInputs(ctx, projectId, mind) };
  let notes = sel && sel.loreStamp === stamp ? load(sel.chunkIds) : null;
  if (!notes) notes = load(selectSharedLore(ctx, projectId, mind)) ?? [];
  const open = new Set(visible);
  if (!notes.every((n) => n.tags.some((t) => open.has(t)))) return [];
  return notes;
}

/** The shared lore as the static prompt carries it, after the system text (the [Lore] notes' own form). */
export function renderSharedLore(notes: SharedNote[]): string {
  return loreBlocks(notes, "as given").join("\n\n");
}

/** The mind's static prompt: its system text and the lore its players share. Every conversation with the mind starts with it. */
export function staticPrompt(mind: MindProfile, shared: SharedNote[]): string {
  const lore = renderSharedLore(shared);
  return lore ? `${systemPrompt(mind)}\n\n${lore}` : systemPrompt(mind);
}

function documentOrder(a: SharedChunkRow, b: SharedChunkRow): number {
  return a.document_name < b.document_name ? -1 : a.document_name > b.document_name ? 1 : a.document_id < b.document_id ? -1 : a.document_id > b.document_id ? 1 : a.chunk_index - b.chunk_index;
}
