// How far a smaller memory vector copy (src/npc/memory/memoryVectorBytes.ts: float16, int8 with a scale) moves the
// memories a turn ranks from the float32 vectors LanceDB holds, on a world's real memories: for pairs of the world
// (a player with a mind, the group a turn ranks) and for larger groups of the world's memories drawn at random, each
// asked several lines (a stock player line, and words of one of the group's memories), the top k by cosine and by
// the enhanced hybrid score (retrieveMemories' ENHANCED_WEIGHTS, the rows' importance and recency) from each copy
// format against float32's. Reads the world (SQLite read-only, LanceDB) without writing it.
// Usage: bun bench/memory-copy-bits.ts --world <world folder> [--pairs 500] [--groups 200] [--group-size 100] [--k 5]
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import * as lancedb from "@lancedb/lancedb";
import { HashingEmbedder } from "../src/vectors/HashingEmbedder.ts";
import { normalised } from "../src/vectors/cacheBlocks.ts";
import { decodeVector, encodeVector, type CopyFormat } from "../src/npc/memory/memoryVectorBytes.ts";
import { ENHANCED_WEIGHTS, RECENCY_HALF_LIFE_DAYS } from "../src/npc/memory/retrieveMemories.ts";
import { keywords } from "../src/npc/memory/memoryText.ts";

const { values: args } = parseArgs({
  options: {
    world: { type: "string" },
    pairs: { type: "string", default: "500" },
    groups: { type: "string", default: "200" },
    "group-size": { type: "string", default: "100" },
    k: { type: "string", default: "5" },
  },
});
if (!args.world) throw new Error("--world <folder> is required");
const w = JSON.parse(readFileSync(join(args.world, "world.json"), "utf8")) as { projectId: string; minds: string[] };
const db = new Database(join(args.world, "data", "lorehold.db"), { readonly: true });
const lance = await lancedb.connect(join(args.world, "data", "lance"));
const meta = JSON.parse(readFileSync(join(args.world, "data", "lance", "lorehold-vectors.json"), "utf8")) as { generation: number; dims: number; embedderId: string };
if (meta.embedderId !== "hashing-384-v1") throw new Error(`this bench embeds queries with the hashing embedder; the world's is ${meta.embedderId}`);
const table = await lance.openTable(`memories_g${meta.generation}`);
const embedder = new HashingEmbedder();
const dims = meta.dims;
const K = Number(args.k);
const FORMATS: CopyFormat[] = ["f16", "i8"];
const LINES = ["Any news from the harbour?", "What do you know of the old bridge?", "Do you remember me?", "Tell me about the brewer's gold coins."];

interface Mem {
  id: string;
  text: string;
  importance: number;
  topics: string[];
  updatedAt: string;
  vector: Float32Array;
}
let seed = 7;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);

async function rowsWhere(where: string): Promise<Mem[]> {
  const raw = (await table.query().where(where).select(["id", "text", "importance", "topics", "vector"]).toArray()) as any[];
  return raw.map((r) => {
    const s = db.query<{ updated_at: string; topics: string }, [string]>("SELECT updated_at, topics FROM memories WHERE id = ?").get(r.id);
    return { id: r.id, text: r.text, importance: Number(r.importance), topics: s ? JSON.parse(s.topics) : [], updatedAt: s?.updated_at ?? "", vector: Float32Array.from(r.vector.toArray ? r.vector.toArray() : r.vector) };
  });
}

const now = Date.now();
/** The order a turn gives the group: cosine alone, or retrieveMemories' enhanced score (ties by id, as it breaks them). */
function rank(mems: Mem[], vectors: Float32Array[], q: Float32Array, query: string, hybrid: boolean): string[] {
  const qw = keywords(query);
  const scored = mems.map((m, i) => {
    const v = normalised(vectors[i], dims);
    let dot = 0;
    for (let d = 0; d < dims; d++) dot += v[d] * q[d];
    if (!hybrid) return { id: m.id, score: dot };
    const own = keywords(`${m.text} ${m.topics.join(" ")}`);
    let shared = 0;
    for (const k of qw) if (own.has(k)) shared++;
    const recency = 0.5 ** (Math.max(0, (now - Date.parse(m.updatedAt)) / 86_400_000) / RECENCY_HALF_LIFE_DAYS);
    const W = ENHANCED_WEIGHTS;
    return { id: m.id, score: W.similarity * Math.min(1, Math.max(0, dot)) + W.keywords * (qw.size ? shared / qw.size : 0) + W.importance * (m.importance / 10) + W.recency * recency };
  });
  scored.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return scored.slice(0, K).map((s) => s.id);
}

type Tally = { asked: number; same: Record<string, number>; sameSet: Record<string, number> };
const tally = (): Tally => ({ asked: 0, same: {}, sameSet: {} });
async function ask(t: Tally, mems: Mem[], hybrid: boolean) {
  const own = mems[Math.floor(rand() * mems.length)].text.split(/\s+/).filter((_, i) => i % 2 === 0).join(" ");
  for (const query of [LINES[Math.floor(rand() * LINES.length)], own]) {
    const [q] = await embedder.embed([query]);
    const qn = normalised(q, dims);
    const ref = rank(mems, mems.map((m) => m.vector), qn, query, hybrid);
    t.asked++;
    for (const f of FORMATS) {
      const got = rank(mems, mems.map((m) => decodeVector(encodeVector(m.vector, f), dims)!), qn, query, hybrid);
      if (got.join() === ref.join()) t.same[f] = (t.same[f] ?? 0) + 1;
      if ([...got].sort().join() === [...ref].sort().join()) t.sameSet[f] = (t.sameSet[f] ?? 0) + 1;
    }
  }
}

const pairsCos = tally();
const pairsHyb = tally();
let pairs = 0;
for (let p = 0; pairs < Number(args.pairs) && p < 100_000; p += 97) {
  const player = `player${p}`;
  const minds = db.query<{ mind_id: string }, [string, string]>("SELECT DISTINCT mind_id FROM memories WHERE project_id = ? AND player_id = ?").all(w.projectId, player);
  for (const { mind_id } of minds) {
    const mems = await rowsWhere(`playerId = '${player}' AND entityMindId = '${mind_id}'`);
    if (mems.length < 2) continue;
    await ask(pairsCos, mems, false);
    await ask(pairsHyb, mems, true);
    pairs++;
  }
}
const groupsCos = tally();
const groupsHyb = tally();
const size = Number(args["group-size"]);
const total = await table.countRows();
for (let g = 0; g < Number(args.groups); g++) {
  const at = Math.floor(rand() * (total - size));
  const raw = (await table.query().select(["id", "text", "importance", "topics", "vector"]).offset(at).limit(size).toArray()) as any[];
  const mems = raw.map((r) => ({ id: r.id, text: r.text, importance: Number(r.importance), topics: [], updatedAt: new Date(now - Math.floor(rand() * 90) * 86_400_000).toISOString(), vector: Float32Array.from(r.vector.toArray ? r.vector.toArray() : r.vector) }));
  await ask(groupsCos, mems, false);
  await ask(groupsHyb, mems, true);
}

const pctOf = (t: Tally, f: string, set = false) => `${(((set ? t.sameSet[f] : t.same[f]) ?? 0) / t.asked * 100).toFixed(2)} %`;
console.log(`\nworld ${args.world}: ${pairs} pairs of the world, ${args.groups} groups of ${size} of its memories; top ${K}; bytes a vector: f32 ${dims * 4}, f16 ${encodeVector(new Float32Array(dims), "f16").byteLength}, i8 ${encodeVector(new Float32Array(dims), "i8").byteLength}\n`);
console.log(`| ranking | queries | f16: top ${K} in the same order | f16: the same ${K} | int8: top ${K} in the same order | int8: the same ${K} |`);
console.log("|---|---|---|---|---|---|");
for (const [label, t] of [["the world's pairs, cosine", pairsCos], ["the world's pairs, enhanced score", pairsHyb], [`groups of ${size}, cosine`, groupsCos], [`groups of ${size}, enhanced score`, groupsHyb]] as const) {
  console.log(`| ${label} | ${t.asked} | ${pctOf(t, "f16")} | ${pctOf(t, "f16", true)} | ${pctOf(t, "i8")} | ${pctOf(t, "i8", true)} |`);
}
