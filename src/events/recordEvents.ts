import { createHash } from "node:crypto";
import { nowIso, type MemoryContext } from "../core/context.ts";
import { ApiError } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import { writeTx } from "../db/openDatabase.ts";
import { insertMemoryRow, toVectorRow } from "../npc/memory/memoryRows.ts";
import type { Memory } from "../npc/memory/types.ts";
import { writeState } from "../state/stateService.ts";
import type { Logger } from "../ops/logger.ts";
import type { EventBody } from "./eventModels.ts";
import { deleteEventRequestsBefore, findEventRequest, insertEvent, insertEventRequest, setEventRequestResponse, type EventRow } from "./eventStore.ts";
import { resolveEvents, type ResolvedEvent } from "./witnesses.ts";
import { insertWorldMemory } from "./worldMemoryStore.ts";
import { queueMemoryVectors } from "../npc/memory/memoryVectorQueueStore.ts";
import { toEventView, type EventView } from "./eventView.ts";
import { mergeRepeat, repeatedEvents } from "./mergeWorldMemory.ts";

export const DEFAULT_EVENT_IMPORTANCE = 5;

export interface Recorded {
  events: EventView[];
  /** the single event's reacting mind, or null */
  reactor: string | null;
}

/** A stored answer to replay for a repeated Idempotency-Key, or null. 409 when the key came with another body. */
export function replayed(ctx: MemoryContext, projectId: string, key: string | null, rawBody: string): unknown | null {
  if (!key) return null;
  const r = findEventRequest(ctx.db, projectId, key);
  if (!r) return null;
  if (r.body_hash !== bodyHash(rawBody)) throw new ApiError(409, "Idempotency-Key already used with a different body");
  if (r.response === IN_PROGRESS) throw new ApiError(409, "A request with this Idempotency-Key is still running");
  return JSON.parse(r.response);
}

/** The answer of a key whose events are recorded and whose answer is not yet kept (its reaction pending). */
const IN_PROGRESS = "";

/** Keeps the answer given to an Idempotency-Key (a retry gets it back: the events are not recorded twice). */
export function rememberResponse(ctx: MemoryContext, projectId: string, key: string, response: unknown): void {
  writeTx(ctx.db, () => setEventRequestResponse(ctx.db, projectId, key, JSON.stringify(response)));
}

/** An Idempotency-Key is kept this long: a retry comes within minutes, and a key may be reused after a day. */
export const IDEMPOTENCY_HOURS = 24;

export function forgetIdempotencyKeys(ctx: MemoryContext | { db: MemoryContext["db"]; clock: MemoryContext["clock"] }): number {
  const before = new Date(ctx.clock.now().getTime() - IDEMPOTENCY_HOURS * 3_600_000).toISOString();
  return writeTx(ctx.db, () => deleteEventRequestsBefore(ctx.db, before));
}

const bodyHash = (raw: string) => createHash("sha256").update(raw).digest("hex");

/**
 * Records events in one transaction (all of them or none): each event row, each witness's memory of it —
 * the player's memory with that mind when the event names a player (src/npc/memory's rows: retrieved,
 * exported and erased with the player's other memories), else a world memory of the mind; a row of who
 * knows it either way (gossip starts from there) — and the
 * world's and the player's state changes. The player memories' vectors are queued for LanceDB, where they land
 * with other writes' in one commit a short window after the reply (src/vectors/MemoryAppends.ts): the request's
 * durability is SQLite's. Until then the default retrieval finds the memories (SQLite alone), and anything that reads
 * or deletes LanceDB's memories waits for the queue first. The memories are marked queued in their transaction
 * (memory_vector_queue), so vectors a crash lost in the window are written again by the memory-vector-repair job.
 */
export async function recordEvents(
  ctx: MemoryContext & { log?: Logger },
  projectId: string,
  events: EventBody[],
  batch: boolean,
  idempotency?: { key: string; rawBody: string },
): Promise<Recorded> {
  const memories: Memory[] = [];
  const out = writeTx(ctx.db, () => {
    // The key is taken with the events, in their transaction: a retry that comes while this request still
    // awaits its reaction is refused (409), never recorded twice; a failed request leaves no key.
    if (idempotency) {
      if (findEventRequest(ctx.db, projectId, idempotency.key)) throw new ApiError(409, "A request with this Idempotency-Key is still running");
      insertEventRequest(ctx.db, projectId, idempotency.key, bodyHash(idempotency.rawBody), IN_PROGRESS, nowIso(ctx));
    }
    const problems: string[] = [];
    const resolved = resolveEvents(ctx.db, projectId, events, batch, problems);
    if (problems.length) throw new ApiError(400, "Invalid request", { details: problems.slice(0, 20) });
    const at = nowIso(ctx);
    const views = resolved.map((r, i) => {
      const row = writeEvent(ctx, projectId, r, at, memories);
      applyState(ctx, projectId, r.input, batch ? `events.${i}.` : "");
      return toEventView(row);
    });
    queueMemoryVectors(ctx.db, memories.map((m) => m.id));
    return { events: views, reactor: resolved[0]?.reactor ?? null };
  });
  if (memories.length) {
    const warn = (e: unknown) => ctx.log?.warn("event memories stored without vectors until repaired", { count: memories.length, err: e instanceof Error ? e.message : String(e) });
    try {
      // not awaited: the reply does not wait for LanceDB (ids made above, so appended, never merged)
      ctx.vectors.appendMemories(memories.map((m) => toVectorRow(projectId, m))).catch(warn);
    } catch (e) {
      warn(e); // the store is closing
    }
  }
  return out;
}

function writeEvent(ctx: MemoryContext, projectId: string, r: ResolvedEvent, at: string, memories: Memory[]): EventRow {
  const e = r.input;
  const row: EventRow = {
    id: newId("evt"),
    project_id: projectId,
    type: e.type,
    description: e.description.trim(),
    location_id: r.locationId,
    player_id: e.playerId ?? null,
    importance: e.importance ?? DEFAULT_EVENT_IMPORTANCE,
    game_time: e.at ?? null,
    secret: e.secret ? 1 : 0,
    public: e.public ? 1 : 0,
    witnesses: JSON.stringify(r.witnesses),
    created_at: at,
  };
  // A repeat of what a witness saw minutes ago is the same memory, not a second one (world events only).
  const repeated = row.player_id ? [] : repeatedEvents(ctx.db, projectId, { type: row.type, description: row.description, at });
  insertEvent(ctx.db, row);
  for (const mindId of r.witnesses) {
    let memoryId: string | null = null;
    if (row.player_id) {
      const m: Memory = {
        id: newId("mem"),
        text: row.description,
        importance: row.importance,
        topics: ["event", row.type.toLowerCase()],
        createdAt: at,
        updatedAt: at,
        entityMindId: mindId,
        playerId: row.player_id,
      };
      insertMemoryRow(ctx.db, projectId, m);
      memories.push(m);
      memoryId = m.id;
    }
    if (repeated.length && mergeRepeat(ctx.db, mindId, repeated, row.importance)) continue;
    // Who knows the event (gossip's hops start here); a player event's text is the player's memory above.
    insertWorldMemory(ctx.db, {
      id: newId("wmem"),
      project_id: projectId,
      mind_id: mindId,
      event_id: row.id,
      player_id: row.player_id,
      memory_id: memoryId,
      importance: row.importance,
      hop: 0,
      told_by: null,
      told_by_name: null,
      known_at: at,
      spread_at: null,
      created_at: at,
    });
  }
  return row;
}

/** The event's world and player state changes, through src/state's service (its checks, its exclusive groups). */
function applyState(ctx: MemoryContext, projectId: string, e: EventBody, path: string): void {
  const write = (playerId: string | null, body: unknown, field: string) => {
    try {
      writeState(ctx, projectId, playerId, body);
    } catch (err) {
      if (err instanceof ApiError && err.status === 400) {
        const details = (err.extra.details as string[] | undefined) ?? [];
        throw new ApiError(400, "Invalid request", { details: details.map((d) => `${path}${field}.${d}`) });
      }
      throw err;
    }
  };
  if (e.state) write(null, e.state, "state");
  if (e.playerState && e.playerId) write(e.playerId, e.playerState, "playerState");
}
