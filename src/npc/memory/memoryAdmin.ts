import { dataPaths } from "../../config/config.ts";
import { forgetPlayerKv } from "../../llm/kv/forgetPlayer.ts";
import type { AppContext } from "../../core/context.ts";
import { nowIso, type ServiceContext } from "../../core/context.ts";
import { parseJsonColumn } from "../../core/json.ts";
import { writeTx } from "../../db/openDatabase.ts";
import { deletePlayerMemories, playerMemories, playerMemoryIds } from "./memoryRows.ts";
import { deletePlayerSessions, playerSessionRows } from "../session/sessionStore.ts";
import { erasePlayerCandidates } from "../../loretests/recording/eraseCandidates.ts";
import { addTombstones, ensureTombstoneTable, purgeErasedMemories } from "./tombstones.ts";
import { deletePlayerPendingSummaries, playerPendingSummaries } from "./pendingSummaryStore.ts";
import type { Memory } from "./types.ts";
import { erasePlayerState, exportPlayerState } from "../../state/stateService.ts";
import type { StateValue } from "../../state/stateKeys.ts";
import { deletePlayerTrust, playerTrustRows } from "../../behaviour/trustStore.ts";
import { deletePlayerCooldowns } from "../../behaviour/cooldownStore.ts";
import { erasePlayerEvents } from "../../events/eventAdmin.ts";

// A player's data per project: list, export, erase (DESIGN.md "Sessions and memory":
// a player's right to be forgotten). Plain services: the admin routes and the CLI call them.

export interface PlayerExport {
  playerId: string;
  exportedAt: string;
  memories: Memory[];
  sessions: { entityMindId: string; messages: unknown[]; updatedAt: string }[];
  /** the player's world-state keys (src/state) */
  state: Record<string, StateValue>;
  /** the player's trust in each mind that keeps it (src/behaviour/) */
  trust: { entityMindId: string; value: number; updatedAt: string }[];
}

export interface EraseResult {
  memoriesDeleted: number;
  sessionsDeleted: number;
  stateKeysDeleted: number;
  /** minds whose trust in the player was erased */
  trustDeleted: number;
}

/** A player's memories in a project (optionally with one mind), oldest first, ties by id. */
export function listMemories(ctx: ServiceContext, projectId: string, playerId: string, opts: { mindId?: string } = {}): Memory[] {
  return playerMemories(ctx.db, projectId, playerId, opts.mindId);
}

/** Everything the server keeps about a player in a project: memories, live sessions, sessions awaiting their summary, state and trust. */
export function exportPlayerData(ctx: ServiceContext, projectId: string, playerId: string): PlayerExport {
  return ctx.db.transaction(() => {
    const sessions = playerSessionRows(ctx.db, projectId, playerId).map((r) => ({ entityMindId: r.mind_id, messages: parseJsonColumn<unknown[]>(r.messages, []), updatedAt: r.updated_at }));
    const pending = playerPendingSummaries(ctx.db, projectId, playerId).map((p) => ({ entityMindId: p.mindId, messages: p.messages as unknown[], updatedAt: p.createdAt }));
    const trust = playerTrustRows(ctx.db, projectId, playerId).map((r) => ({ entityMindId: r.mind_id, value: r.value, updatedAt: r.updated_at }));
    return { playerId, exportedAt: nowIso(ctx), memories: listMemories(ctx, projectId, playerId), sessions: [...sessions, ...pending], state: exportPlayerState(ctx, projectId, playerId), trust };
  })();
}

/**
 * Deletes a player's memories, sessions (a session awaiting its summary too: a summary running for it then
 * stores nothing), state, trust and action cooldowns from SQLite, and leaves a tombstone per memory for the
 * vector purge. This is all the CLI may do (only the server writes LanceDB); the server's purgeErasedMemories
 * job removes the vectors.
 */
export function erasePlayerRows(ctx: ServiceContext, projectId: string, playerId: string): EraseResult & { memoryIds: string[] } {
  ensureTombstoneTable(ctx.db);
  return writeTx(ctx.db, () => {
    const ids = playerMemoryIds(ctx.db, projectId, playerId);
    addTombstones(ctx.db, projectId, ids, nowIso(ctx));
    deletePlayerMemories(ctx.db, projectId, playerId);
    const sessionsDeleted = deletePlayerSessions(ctx.db, projectId, playerId) + deletePlayerPendingSummaries(ctx.db, projectId, playerId);
    const stateKeysDeleted = erasePlayerState(ctx, projectId, playerId);
    const trustDeleted = deletePlayerTrust(ctx.db, projectId, playerId);
    deletePlayerCooldowns(ctx.db, projectId, playerId);
    // The events about the player (their witnesses' memories of it went with the memories above).
    erasePlayerEvents(ctx, projectId, playerId);
    // The candidate lore tests recorded from their conversations (kept under a hash of their id).
    erasePlayerCandidates(ctx.db, projectId, playerId);
    return { memoriesDeleted: ids.length, sessionsDeleted, stateKeysDeleted, trustDeleted, memoryIds: ids };
  });
}

/**
 * The right to be forgotten, in the server: SQLite rows first (retrieval stops
 * seeing them at once), then the LanceDB vectors. If the vector delete fails,
 * the tombstones stay and the purge job retries; the error is still thrown.
 */
export async function erasePlayer(
  ctx: Pick<AppContext, "db" | "clock" | "vectors"> & Partial<Pick<AppContext, "llm" | "config">>,
  projectId: string,
  playerId: string,
): Promise<EraseResult> {
  const r = erasePlayerRows(ctx, projectId, playerId);
  // KV state too: resident sequences and snapshots on disk (src/llm/kv/forgetPlayer.ts).
  forgetPlayerKv({ llm: ctx.llm, kvDir: ctx.config && dataPaths(ctx.config).kv }, projectId, playerId);
  if (r.memoryIds.length) await purgeErasedMemories(ctx, { only: { projectId, ids: r.memoryIds } });
  return { memoriesDeleted: r.memoriesDeleted, sessionsDeleted: r.sessionsDeleted, stateKeysDeleted: r.stateKeysDeleted, trustDeleted: r.trustDeleted };
}
