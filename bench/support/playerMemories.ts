import type { AppContext } from "../../src/core/context.ts";
import { insertMemoryRow } from "../../src/npc/memory/memoryRows.ts";
import { asData } from "../../src/vectors/generation.ts";
import { memoryRecord } from "../../src/vectors/vectorRecords.ts";
import type { MemoryRow } from "../../src/vectors/rows.ts";

/**
 * Players' memories for a big-world bench, written straight to SQLite (the rows a turn's retrieval picks from)
 * and LanceDB (their vectors, for enhanced retrieval) in batches: player p has met two minds (the p-th and the
 * (7p+3)-th), with `perMind` memories of each, drawn from `sentences` by a fixed-seed generator, so two benches
 * (or two runs) write the same memories. Players from `fromPlayer` (a world topped up with more players) draw
 * from a generator seeded by it; `to` leaves out a store (a world whose LanceDB rows exist already). Returns how
 * many were written.
 */
export async function writePlayerMemories(
  ctx: AppContext,
  projectId: string,
  minds: readonly string[],
  players: number,
  perMind: number,
  sentences: readonly string[],
  opts: { fromPlayer?: number; to?: readonly ("sqlite" | "lance")[] } = {},
): Promise<number> {
  const from = opts.fromPlayer ?? 0;
  const to = new Set(opts.to ?? ["sqlite", "lance"]);
  const g = ctx.vectors.activeGeneration();
  let written = 0;
  let batch: MemoryRow[] = [];
  let x = 4242 + from;
  const rnd = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const flush = async () => {
    if (!batch.length) return;
    if (to.has("sqlite")) {
      ctx.db.transaction(() => {
        for (const m of batch) insertMemoryRow(ctx.db, projectId, { ...m, updatedAt: m.createdAt });
      })();
    }
    if (to.has("lance")) {
      const vectors = await ctx.vectors.embedder!.embed(batch.map((m) => m.text));
      await g.memories.add(asData(g, "memories", batch.map((m, i) => memoryRecord(m, vectors[i]))));
    }
    written += batch.length;
    batch = [];
  };
  for (let p = from; p < players; p++) {
    for (const mind of [minds[p % minds.length], minds[(p * 7 + 3) % minds.length]]) {
      for (let i = 0; i < perMind; i++) {
        batch.push({ id: `mem-${p}-${mind}-${i}`, projectId, entityMindId: mind, playerId: `player${p}`, text: sentences[Math.floor(rnd() * sentences.length)], importance: 5, topics: [], createdAt: "2026-01-15T12:00:00.000Z" });
      }
    }
    if (batch.length >= 20_000) await flush();
  }
  await flush();
  return written;
}

/**
 * A world's players' memories topped up from `oldPlayers` to `players` (bench/preview-overhead.ts --from): the new
 * players' to both stores. A world built before its builder wrote players' memories to SQLite holds the old ones in
 * LanceDB only: their SQLite rows (the same, same seed) are written first; one built since holds them in both, and
 * writing them again would fail on memories.id. SQLite rows neither none nor the old players' all: an error, as the
 * world is then neither. Returns the old players' rows written and the new memories.
 */
export async function topUpPlayerMemories(
  ctx: AppContext,
  projectId: string,
  minds: readonly string[],
  oldPlayers: number,
  players: number,
  perMind: number,
  sentences: readonly string[],
): Promise<{ oldRows: number; written: number }> {
  if (!(players > oldPlayers)) throw new Error(`${players} players: the world has ${oldPlayers} already`);
  const have = memoryRows(ctx, projectId);
  const want = oldPlayers * 2 * perMind;
  let oldRows = 0;
  if (have === 0) oldRows = await writePlayerMemories(ctx, projectId, minds, oldPlayers, perMind, sentences, { to: ["sqlite"] });
  else if (have !== want) throw new Error(`the world has ${have} SQLite memory rows: neither none nor its ${oldPlayers} players' ${want}`);
  const written = await writePlayerMemories(ctx, projectId, minds, players, perMind, sentences, { fromPlayer: oldPlayers });
  return { oldRows, written };
}

/** The project's memory rows in SQLite. */
export function memoryRows(ctx: AppContext, projectId: string): number {
  return ctx.db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM memories WHERE project_id = ?").get(projectId)!.n;
}
