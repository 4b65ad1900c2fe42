import { nowIso, type ServiceContext } from "../core/context.ts";
import { newId } from "../core/ids.ts";
import { writeTx } from "../db/openDatabase.ts";
import { mindRows } from "../lore/minds/mindStore.ts";
import { projectRelationships } from "../lore/relationships/relationshipStore.ts";
import { eventById } from "./eventStore.ts";
import { gossipLevels } from "./gossipStore.ts";
import { CUSTOM_WEIGHT, DEFAULT_GOSSIP_LEVEL, HOP_DELAY_MINUTES, isGossipLevel, MAX_HOPS, passOn, RELATIONSHIP_WEIGHT, type GossipLevel } from "./gossipRules.ts";
import { insertWorldMemory, markSpread, mindsKnowing, setDelivered, undelivered, unspread, type WorldMemoryRow } from "./worldMemoryStore.ts";
import { sameHappening } from "./mergeWorldMemory.ts";
import { insertMemoryRow, toVectorRow } from "../npc/memory/memoryRows.ts";
import { queueMemoryVectors } from "../npc/memory/memoryVectorQueueStore.ts";
import type { Memory } from "../npc/memory/types.ts";
import type { VectorStore } from "../vectors/VectorStore.ts";

export const GOSSIP_JOB = "gossip";
/** World memories passed on per transaction (a tick takes batches until none is due or it is stopped). */
const BATCH = 200;

interface ProjectGraph {
  levels: Map<string, GossipLevel>;
  names: Map<string, string>;
  /** mind → neighbours with the strongest weight of any relationship between them */
  neighbours: Map<string, Map<string, number>>;
}

/**
 * The gossip job's tick: every world memory its mind knows by now and has not passed on is told to the
 * mind's neighbours (relationships, both directions) by the rules of gossipRules.ts. A hearer knows it a
 * hop's delay after its teller knew it (the teller's level), with fading importance and the teller's name
 * (the prompt says "Berta told you"). Secret events never spread. Each memory is passed on in one
 * transaction with the memories it creates (markSpread), and a mind learns an event once (UNIQUE): a tick
 * cut short, or a restart in the middle, neither loses a hop nor tells anyone twice.
 */
export async function spreadGossip(ctx: ServiceContext & { vectors?: VectorStore }, opts: { signal?: AbortSignal } = {}): Promise<{ spread: number; told: number; delivered: number }> {
  let spread = 0;
  let told = 0;
  let delivered = 0;
  const graphs = new Map<string, ProjectGraph>();
  for (;;) {
    if (opts.signal?.aborted) break;
    delivered += await deliver(ctx);
    if (opts.signal?.aborted) break;
    const due = unspread(ctx.db, nowIso(ctx), BATCH);
    if (!due.length) break;
    writeTx(ctx.db, () => {
      for (const m of due) {
        let g = graphs.get(m.project_id);
        if (!g) graphs.set(m.project_id, (g = projectGraph(ctx, m.project_id)));
        told += tell(ctx, g, m);
        if (markSpread(ctx.db, m.id, nowIso(ctx))) spread++;
      }
    });
    // let requests in between batches
    await new Promise((r) => setTimeout(r, 0));
  }
  return { spread, told, delivered };
}

/**
 * Hearsay about a player becomes that player's memory with the hearer once the hearer knows it ("Berta told
 * you: …"), in the transaction that marks it delivered: retrieved, exported and erased like the rest of the
 * player's memories (an erased player's events, and with them this row, are gone: nothing is delivered).
 * The vectors are queued as an event's are (recordEvents.ts): appended with other writes' in one commit, the
 * repair job writing them again if a crash lost them (a memory without its vector is still found by the default
 * retrieval).
 */
async function deliver(ctx: ServiceContext & { vectors?: VectorStore }): Promise<number> {
  const due = undelivered(ctx.db, nowIso(ctx), BATCH);
  if (!due.length) return 0;
  const made: { projectId: string; memory: Memory }[] = [];
  writeTx(ctx.db, () => {
    for (const k of due) {
      const at = nowIso(ctx);
      const memory: Memory = {
        id: newId("mem"),
        text: `${k.told_by_name ?? "Someone"} told you: ${k.description}`,
        importance: k.importance,
        topics: ["event", "gossip"],
        createdAt: at,
        updatedAt: at,
        entityMindId: k.mind_id,
        playerId: k.player_id!,
      };
      if (!setDelivered(ctx.db, k.id, memory.id)) continue;
      insertMemoryRow(ctx.db, k.project_id, memory);
      made.push({ projectId: k.project_id, memory });
    }
    queueMemoryVectors(ctx.db, made.map((m) => m.memory.id));
  });
  if (ctx.vectors && made.length) {
    try {
      ctx.vectors.appendMemories(made.map(({ projectId, memory }) => toVectorRow(projectId, memory))).catch(() => undefined);
    } catch {
      // the store is closing: the repair job writes them at the next start
    }
  }
  return made.length;
}

function tell(ctx: ServiceContext, g: ProjectGraph, m: WorldMemoryRow): number {
  if (m.hop >= MAX_HOPS) return 0;
  const event = eventById(ctx.db, m.project_id, m.event_id);
  if (!event || event.secret) return 0;
  const level = g.levels.get(m.mind_id) ?? DEFAULT_GOSSIP_LEVEL;
  const around = g.neighbours.get(m.mind_id);
  if (!around?.size) return 0;
  // a mind that knows another report of the same happening is not told this one (it would be two memories)
  const knowing = mindsKnowing(ctx.db, m.event_id);
  if (event.player_id === null) {
    for (const other of sameHappening(ctx.db, m.project_id, { type: event.type, description: event.description, at: event.created_at })) {
      if (other !== event.id) for (const mind of mindsKnowing(ctx.db, other)) knowing.add(mind);
    }
  }
  const knownAt = new Date(Date.parse(m.known_at) + HOP_DELAY_MINUTES[level] * 60_000).toISOString();
  let n = 0;
  for (const [hearer, weight] of around) {
    if (knowing.has(hearer)) continue;
    const importance = passOn(m.importance, weight, level);
    if (importance === null) continue;
    const inserted = insertWorldMemory(ctx.db, {
      id: newId("wmem"),
      project_id: m.project_id,
      mind_id: hearer,
      event_id: m.event_id,
      player_id: m.player_id,
      memory_id: null,
      importance,
      hop: m.hop + 1,
      told_by: m.mind_id,
      told_by_name: g.names.get(m.mind_id) ?? null,
      known_at: knownAt,
      spread_at: null,
      created_at: nowIso(ctx),
    });
    if (inserted) n++;
  }
  return n;
}

function projectGraph(ctx: ServiceContext, projectId: string): ProjectGraph {
  const levels = new Map<string, GossipLevel>();
  for (const [mind, level] of gossipLevels(ctx.db, projectId)) if (isGossipLevel(level)) levels.set(mind, level);
  const names = new Map(mindRows(ctx.db, projectId).map((m) => [m.id, m.entity_name]));
  const neighbours = new Map<string, Map<string, number>>();
  const link = (a: string, b: string, w: number) => {
    const around = neighbours.get(a) ?? new Map<string, number>();
    around.set(b, Math.max(w, around.get(b) ?? 0));
    neighbours.set(a, around);
  };
  for (const r of projectRelationships(ctx.db, projectId)) {
    if (r.fromId === r.toId) continue;
    const w = r.type ? (RELATIONSHIP_WEIGHT[r.type] ?? CUSTOM_WEIGHT) : CUSTOM_WEIGHT;
    link(r.fromId, r.toId, w);
    link(r.toId, r.fromId, w);
  }
  return { levels, names, neighbours };
}
