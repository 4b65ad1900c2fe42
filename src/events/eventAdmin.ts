import { nowIso, type ServiceContext } from "../core/context.ts";
import { ApiError, notFound } from "../core/errors.ts";
import { writeTx } from "../db/openDatabase.ts";
import { mindIdByIdOrKey } from "../lore/minds/mindStore.ts";
import { deletePlayerEvents, eventById, eventPage, type EventFilter } from "./eventStore.ts";
import { toEventView, type EventView } from "./eventView.ts";
import { gossipLevels, upsertGossipLevel } from "./gossipStore.ts";
import { DEFAULT_GOSSIP_LEVEL, GOSSIP_LEVELS, isGossipLevel, type GossipLevel } from "./gossipRules.ts";
import { eventKnowledge } from "./worldMemoryStore.ts";

/** The events log of a project (newest first), filtered by type, player and mind (witnessed or heard). */
export function listEvents(ctx: ServiceContext, projectId: string, f: EventFilter): { events: EventView[]; total: number; limit: number; offset: number } {
  const mindId = f.mindId === undefined ? undefined : (mindIdByIdOrKey(ctx.db, projectId, f.mindId) ?? f.mindId);
  const { rows, total } = eventPage(ctx.db, projectId, { ...f, mindId });
  return { events: rows.map(toEventView), total, limit: f.limit, offset: f.offset };
}

export interface Knower {
  entityMindId: string;
  name: string;
  /** 0: saw it; n: heard it through n tellers */
  hop: number;
  /** the mind it heard it from, and the whole chain back to a witness (witness first) */
  toldBy: string | null;
  path: string[];
  importance: number;
  knownAt: string;
  /** false: the story is on its way (a hop's delay) and the mind does not know it yet */
  knowsNow: boolean;
}

/**
 * Who knows an event now and through whom: its witnesses and gossip's hearers, each with the chain of tellers
 * back to a witness (for an event about a player, each knower's memory of it is that player's memory).
 */
export function whoKnows(ctx: ServiceContext, projectId: string, eventId: string): { event: EventView; knowers: Knower[] } {
  const row = eventById(ctx.db, projectId, eventId);
  if (!row) throw notFound("Event");
  const event = toEventView(row);
  const now = nowIso(ctx);
  const rows = eventKnowledge(ctx.db, projectId, eventId);
  const byMind = new Map(rows.map((r) => [r.mind_id, r]));
  const pathOf = (mindId: string): string[] => {
    const chain: string[] = [];
    for (let at: string | null = mindId; at && !chain.includes(at); at = byMind.get(at)?.told_by ?? null) chain.unshift(at);
    return chain;
  };
  return {
    event,
    knowers: rows.map((r) => ({
      entityMindId: r.mind_id,
      name: r.mind_name,
      hop: r.hop,
      toldBy: r.told_by,
      path: pathOf(r.mind_id),
      importance: r.importance,
      knownAt: r.known_at,
      knowsNow: r.known_at <= now,
    })),
  };
}

/** A mind's gossip level ("normal" unless set). */
export function getGossipLevel(ctx: ServiceContext, projectId: string, mindIdOrKey: string): { entityMindId: string; level: GossipLevel } {
  const id = mindIdByIdOrKey(ctx.db, projectId, mindIdOrKey);
  if (!id) throw new ApiError(404, "Entity Mind not found");
  const level = gossipLevels(ctx.db, projectId).get(id);
  return { entityMindId: id, level: isGossipLevel(level) ? level : DEFAULT_GOSSIP_LEVEL };
}

export function setGossipLevel(ctx: ServiceContext, projectId: string, mindIdOrKey: string, body: unknown): { entityMindId: string; level: GossipLevel } {
  const level = (body as { level?: unknown } | null)?.level;
  if (!isGossipLevel(level) || Object.keys(body as object).length !== 1) {
    throw new ApiError(400, "Invalid request", { details: [`level: one of ${GOSSIP_LEVELS.join(", ")} (and no other field)`] });
  }
  const id = mindIdByIdOrKey(ctx.db, projectId, mindIdOrKey);
  if (!id) throw new ApiError(404, "Entity Mind not found");
  writeTx(ctx.db, () => upsertGossipLevel(ctx.db, projectId, id, level, nowIso(ctx)));
  return { entityMindId: id, level };
}

/** A player's events go with the player (their witnesses' memories are the player's memories, erased with them). */
export function erasePlayerEvents(ctx: ServiceContext, projectId: string, playerId: string): number {
  return deletePlayerEvents(ctx.db, projectId, playerId);
}
