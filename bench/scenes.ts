// A 4-mind scene of 10 turns through POST /v1/scenes/{id}/turn, side by side with the same minds answering the same
// player lines in separate one-to-one conversations (POST /v1/npc/interact), in one run on one model.
// Per line: time to first token, prompt tokens, prompt tokens evaluated (the rest came from the KV cache).
// Usage: bun bench/scenes.ts [--model PATH] [--threads 1] [--tokens 32] [--turns 10] [--max-lines 3] [--session-limit 6]
// Without --model: Qwen2.5-Coder-0.5B-Instruct from the test fixtures (real words, so the transcript grows as a real one would).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { App } from "../src/app/App.ts";
import { loadConfig } from "../src/config/config.ts";
import { silentLogger } from "../src/ops/logger.ts";
import { importPack, parsePackText } from "../src/packs/importPack.ts";
import { createApiKey } from "../src/auth/apiKeys.ts";
import { readMinds } from "../src/lore/minds/readMinds.ts";
import { updateMind } from "../src/lore/minds/writeMinds.ts";
import { setRateLimits } from "../src/ratelimit/rateLimitSettings.ts";
import { updateSettings } from "../src/projects/settings.ts";
import { qwenFixture } from "../test/realmodel/realFixtures.ts";
import { interact, type InteractOptions } from "../src/npc/interactService.ts";
import { validateInteract } from "../src/npc/validateInteract.ts";
import { requireServer } from "../src/auth/authGuards.ts";
import { indexAll } from "./support/indexAll.ts";

const { values: args } = parseArgs({
  options: {
    model: { type: "string" },
    threads: { type: "string", default: "1" },
    tokens: { type: "string", default: "32" },
    turns: { type: "string", default: "10" },
    "max-lines": { type: "string", default: "3" },
    "session-limit": { type: "string", default: "6" },
  },
});
const model = args.model ?? qwenFixture();
if (!model) throw new Error("no model: pass --model PATH (the Qwen fixture is not installed)");
const threads = Number(args.threads);
const turns = Number(args.turns);
const maxLines = Number(args["max-lines"]);
const median = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] : NaN);
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);

const dir = mkdtempSync(join(tmpdir(), "lorehold-bench-scenes-"));
const config = loadConfig({
  cwd: dir,
  env: {},
  flags: { dataDir: join(dir, "data"), modelsDir: dir, model, threads, parallel: 4, contextSize: 2048, maxReplyTokens: Number(args.tokens), logLevel: "silent", generationTimeoutMs: 600_000 },
});
const app = await App.create(config, { logger: silentLogger });
const pack = readFileSync(join(import.meta.dir, "../examples/thornhaven.yaml"), "utf8");
const { projectId } = importPack(app.ctx, parsePackText(pack, "thornhaven.yaml"), { monthlyCredits: 1_000_000 });
await indexAll(app);
const key = createApiKey(app.ctx, { projectId, type: "server" }).key;
setRateLimits(app.ctx, projectId, { perPlayerPerMinute: 100000, perProjectPerMinute: 100000 });
// A short session limit: the scene passes it, so the figures show what a line costs past the memory checkpoint.
updateSettings(app.ctx, projectId, { maxSessionLength: Number(args["session-limit"]) });
const minds = readMinds(app.ctx, projectId, { onlyWithTags: true }).slice(0, 4);
for (const m of minds) updateMind(app.ctx, projectId, m.id, { responseConfig: { maxTokens: Number(args.tokens) } });
const principal = requireServer(app.ctx, `Bearer ${key}`);
const first = (m: { entityName: string }) => m.entityName.split(" ")[0];

const call = async (method: string, path: string, body?: unknown) => {
  const res = await app.handle(new Request(`http://localhost${path}`, { method, headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: body ? JSON.stringify(body) : undefined }));
  const json: any = await res.json();
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
};

const playerLines = [
  `Evening, all. ${first(minds[0])}, what news tonight?`,
  "What do the rest of you make of that?",
  `${first(minds[1])}, is the river road safe?`,
  "Has anyone seen strangers in town?",
  `${first(minds[2])}, what do you know of the abbey?`,
  "Who would gain from all this trouble?",
  `${first(minds[3])}, can I trust the watch?`,
  "Tell me something I do not know yet.",
  "What should I do first tomorrow?",
  "Thank you. Any last word before I go?",
];

interface Row { turn: number; mind: string; ttft: number; prompt: number; evaluated: number; completion: number }
const scene: Row[] = [];
const { sceneId } = await call("POST", "/v1/scenes", { minds: minds.map((m) => m.id), playerId: "bench-player", location: "The Rusty Tankard" });
const s0 = performance.now();
for (let i = 0; i < turns; i++) {
  const r = await call("POST", `/v1/scenes/${sceneId}/turn`, { text: playerLines[i % playerLines.length], maxLines });
  for (const l of r.lines) scene.push({ turn: i + 1, mind: l.mindId, ttft: l.metadata.timing.timeToFirstTokenMs ?? NaN, prompt: l.metadata.timing.promptTokens, evaluated: l.metadata.timing.evaluatedPromptTokens, completion: l.metadata.timing.completionTokens });
  console.error(`scene turn ${i + 1}: ${JSON.stringify(scene.filter((x) => x.turn === i + 1))}`);
}
const sceneSeconds = (performance.now() - s0) / 1000;

// The same speakers answering the same player lines, each in its own one-to-one conversation.
const separate: Row[] = [];
const s1 = performance.now();
for (const row of scene) {
  // The interact service itself (what each scene line runs), with its timing filled in.
  const timing: NonNullable<InteractOptions["timing"]> = { generateMs: 0 };
  await interact(app.ctx as any, principal, validateInteract({ text: playerLines[(row.turn - 1) % playerLines.length], entityMindId: row.mind, playerId: `bench-solo-${row.mind}` }), { timing });
  console.error(`separate line: ${JSON.stringify({ turn: row.turn, prompt: timing.promptTokens, evaluated: timing.evaluatedPromptTokens, ttft: timing.timeToFirstTokenMs })}`);
  separate.push({ ...row, ttft: timing.timeToFirstTokenMs ?? NaN, prompt: timing.promptTokens ?? NaN, evaluated: timing.evaluatedPromptTokens ?? NaN, completion: timing.completionTokens ?? NaN });
}
const separateSeconds = (performance.now() - s1) / 1000;

const byTurn = (rows: Row[], t: number) => rows.filter((r) => r.turn === t);
console.log(`\nmachine: ${cpus()[0]?.model} ×${cpus().length}, load ${loadavg().map((x) => x.toFixed(1)).join(" ")}; model ${model.split("/").pop()}; threads ${threads}; reply ≤ ${args.tokens} tokens; session limit ${args["session-limit"]} turns`);
console.log(`minds: ${minds.map((m) => m.entityName).join(", ")}; ${turns} turns, up to ${maxLines} lines each: ${scene.length} lines\n`);
console.log("| turn | lines | scene: prompt tokens / line | scene: evaluated / line | scene: first token ms (median) | separate: prompt / line | separate: evaluated / line | separate: first token ms |");
console.log("|---|---|---|---|---|---|---|---|");
for (let t = 1; t <= turns; t++) {
  const a = byTurn(scene, t);
  const b = byTurn(separate, t);
  console.log(`| ${t} | ${a.length} | ${mean(a.map((r) => r.prompt)).toFixed(0)} | ${mean(a.map((r) => r.evaluated)).toFixed(0)} | ${median(a.map((r) => r.ttft)).toFixed(0)} | ${mean(b.map((r) => r.prompt)).toFixed(0)} | ${mean(b.map((r) => r.evaluated)).toFixed(0)} | ${median(b.map((r) => r.ttft)).toFixed(0)} |`);
}
const lps = (n: number, s: number) => n / s;
console.log(`\nlines per second: scene ${lps(scene.length, sceneSeconds).toFixed(3)}, separate ${lps(separate.length, separateSeconds).toFixed(3)} (scene ÷ separate ${(lps(scene.length, sceneSeconds) / lps(separate.length, separateSeconds)).toFixed(2)})`);
console.log(`first token, median over all lines: scene ${median(scene.map((r) => r.ttft)).toFixed(0)} ms, separate ${median(separate.map((r) => r.ttft)).toFixed(0)} ms (ratio ${(median(scene.map((r) => r.ttft)) / median(separate.map((r) => r.ttft))).toFixed(2)})`);
console.log(`prompt tokens per line, last 3 turns ÷ first 3: scene ${(mean(scene.filter((r) => r.turn > turns - 3).map((r) => r.prompt)) / mean(scene.filter((r) => r.turn <= 3).map((r) => r.prompt))).toFixed(2)}, max ${Math.max(...scene.map((r) => r.prompt))} (context 2048)`);
await app.stop();
rmSync(dir, { recursive: true, force: true });
