/**
 * `bun bench/quality.ts --rescore FILE...`: the tables of stored runs (bench/results/*.json) with the detectors as
 * they are now, so runs made before a detector changed are compared by the same checks. No model is loaded.
 */
import { readFileSync } from "node:fs";
import { replyProblems } from "../../src/npc/replies/detectors.ts";
import { capSentences, cutAtLastSentence, splitSentences } from "../../src/npc/replies/sentences.ts";
import { words } from "../../src/npc/replies/wordOverlap.ts";
import { createTestApp } from "../../test/support/testApp.ts";
import { contextOf, loadWorld, type ReplyRecord } from "./qualityWorldRun.ts";
import { worldTable } from "./qualityTables.ts";
import type { QualityWorld } from "./worldTypes.ts";

/** `merge`: the files' records of one world and model in one table (parts, arms or seeds run in separate processes). */
export async function rescore(files: string[], worlds: QualityWorld[], root: string, merge = false): Promise<string> {
  const t = await createTestApp({ embeddingModel: "hashing" }, { loadModel: false });
  const loaded = new Map(worlds.map((w) => [w.name, loadWorld(t, w, root)]));
  const out: string[] = [];
  const merged = new Map<string, { records: ReplyRecord[]; memory: string[]; files: string[]; loads: unknown[] }>();
  for (const file of files) {
    const run = JSON.parse(readFileSync(file, "utf8")) as { meta: Record<string, unknown>; worlds: Record<string, { memory: string | null; records: ReplyRecord[] }> };
    for (const [name, { memory, records }] of Object.entries(run.worlds)) {
      const w = loaded.get(name);
      if (!w) continue;
      for (const r of records) {
        const ctx = contextOf(t, w, r.mind, r.text, r.previous ?? null);
        r.problems = replyProblems(r.reply, ctx);
        if (r.firstAttempt !== undefined) r.firstProblems = replyProblems(r.firstAttempt, ctx);
        // the world's facts as they are now too (a fact widened to a form a reply used counts in every stored run alike)
        const fact = factOf(w.world, r);
        if (fact && r.hit !== undefined) r.hit = fact.test(r.reply);
      }
      records.push(...cappedNaive(records, w.world, (r) => contextOf(t, w, r.mind, r.text, null)));
      const m = run.meta;
      if (merge) {
        const key = `${name}: ${m.model}`;
        const g = merged.get(key) ?? { records: [], memory: [], files: [], loads: [] };
        g.records.push(...records);
        if (memory) g.memory.push(memory);
        g.files.push(`${file.split("/").pop()} (commit ${m.commit}, seeds ${m.seeds})`);
        g.loads.push(...(m.loadAverage as unknown[]));
        merged.set(key, g);
        continue;
      }
      out.push(`#### ${name}: ${m.model} (${file.split("/").pop()}, commit ${m.commit}, seeds ${m.seeds}, load ${JSON.stringify(m.loadAverage)})\n\n${worldTable(records)}\n\nMemory: ${memory ?? "–"}`);
    }
  }
  for (const [key, g] of merged)
    out.push(`#### ${key} (merged: ${g.files.join(", ")}; load ${JSON.stringify(g.loads)})\n\n${worldTable(g.records)}\n\nMemory: ${g.memory.join(" / ") || "–"}`);
  await t.close();
  return out.join("\n\n");
}

/**
 * The naive baseline held to the product's reply rules: each naive reply cut after the mind's maxSentences, and,
 * where the 64-token cap ended it, back to its last sentence end (src/npc/replies/ReplyShaper.ts does both to a
 * product reply). Generation is left to right, so a capped generation of the same seed is exactly this prefix (the
 * product also ends a reply at the first sentence end within 12 tokens of the cap: not modelled here, it can only
 * keep the capped naive reply longer than the product would).
 */
export function cappedNaive(records: ReplyRecord[], world: QualityWorld, ctxOf: (r: ReplyRecord) => ReturnType<typeof contextOf>): ReplyRecord[] {
  return records
    .filter((r) => r.arm === "naive")
    .map((r) => {
      let reply = capSentences(r.reply, r.maxSentences);
      if (r.finishReason === "length" && reply === r.reply) reply = cutAtLastSentence(reply);
      const fact = factOf(world, r);
      return {
        ...r, arm: "naiveCapped" as const, reply, problems: replyProblems(reply, ctxOf(r)), words: words(reply).length,
        sentences: splitSentences(reply).length, ...(fact && r.hit !== undefined ? { hit: fact.test(reply) } : {}),
      };
    });
}

/** The fact a grounding question or secret probe is scored by. */
function factOf(world: QualityWorld, r: ReplyRecord): RegExp | undefined {
  return (r.part === "grounding" ? world.grounding : r.part === "secrets" ? world.secrets : []).find((q) => q.mind === r.mind && q.text === r.text)?.fact;
}
