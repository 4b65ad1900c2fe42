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
