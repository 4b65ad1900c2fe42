/**
 * A new player's first turn with a mind whose prompt was warmed (its prefix snapshot saved), on a model without a chat
 * template: how many prompt tokens the turn evaluates and how long until its first token. Run the same script in two
 * trees at once (the code before and after a change) so both arms share the machine's load:
 *
 *   bun bench/basePrefix.ts --model gemma --worlds tuning            # in each tree, side by side
 *
 * The product's path: the app's warm-up of its most used minds (warmKnownMinds), then POST /v1/npc/interact, one new
 * player per question, the engine's own results read off its generate call.
 */
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import type { GenerateResult } from "../src/llm/types.ts";
import { warmKnownMinds } from "../src/npc/warmMinds.ts";
import { createTestApp } from "../test/support/testApp.ts";
import { TUNING } from "./support/qualityQuestions.ts";
import { loadWorld } from "./support/qualityWorldRun.ts";
import { arg, fixturesOrExit } from "./support/benchArgs.ts";
import { indexAll } from "./support/indexAll.ts";

const fx = fixturesOrExit("basePrefix");
const root = join(import.meta.dir, "..");
const modelPath = arg("model", "gemma") === "smol" ? fx.smol : fx.gemma;
const rounds = Number(arg("rounds", "2"));
const t = await createTestApp({ model: modelPath, modelsDir: fx.modelsDir, embeddingModel: fx.minilm, threads: 1, parallel: 1, contextSize: 4096, maxReplyTokens: 8 });
const w = loadWorld(t, TUNING, root);
await indexAll(t.app);
// Restore whenever it saves tokens: the choice between restoring and evaluating is not what is measured here.
(t.app.ctx.llm as unknown as { warm: { options: { restore: string } } }).warm.options.restore = "always";
const gen = t.app.ctx.generation!;
const original = gen.generate.bind(gen);
let last: GenerateResult | null = null;
gen.generate = async (req) => (last = await original(req));
const warmed = warmKnownMinds(t.app.ctx, t.app.ctx.llm!, 64);
await t.app.ctx.llm!.kvIdle();
console.error(`warmed ${warmed} minds`);
const rows: { mind: string; prompt: number; evaluated: number; firstTokenMs: number; source: string }[] = [];
for (let round = 0; round < rounds; round++)
  for (const [i, q] of TUNING.grounding.entries()) {
    const m = w.minds[q.mind];
    last = null;
    await t.call("POST", "/v1/npc/interact", { key: w.key[m.projectId], body: { text: q.text, entityMindId: m.id, playerId: `newcomer-${round}-${i}` } });
    const r = last as GenerateResult | null;
    if (!r) continue;
    rows.push({ mind: q.mind, prompt: r.promptTokens, evaluated: r.evaluatedPromptTokens, firstTokenMs: Math.round(r.timeToFirstTokenMs), source: r.timings?.warmSource ?? "?" });
    console.error(JSON.stringify(rows.at(-1)));
  }
await t.close();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? 0;
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
console.log(
  `| ${arg("label", "this tree")} | ${rows.length} | ${sum(rows.map((r) => r.prompt))} | ${sum(rows.map((r) => r.evaluated))} | ${median(rows.map((r) => r.evaluated))} | ${median(rows.map((r) => r.firstTokenMs))} ms | ${rows.filter((r) => r.source === "prefix").length} | ${cpus()[0]?.model}, load ${loadavg()[0].toFixed(1)} |`,
);
