/**
 * Lore tests: a suite's wall time beside the time its replies take to generate, on a real model. The suite is
 * the demo world (examples/thornhaven.yaml) asked N cases × R runs, cases of one mind next to each other (they share
 * the mind's warm prompt prefix), run the way the admin API runs it: a scratch copy of the project, the server's
 * engine, every result stored. "Generating" is the time inside the reply generation of every turn (prompt
 * evaluation, sampling, the reply guard); everything else (the copy, preparing turns, retrieval, seeding, the checks,
 * storing results) is the runner's overhead, and the target is wall ≤ 1.2 × generating.
 *
 *   bun bench/loretests.ts                      # 50 cases × 3 runs on Qwen2.5-Coder-0.5B-Instruct, 1 thread
 *   bun bench/loretests.ts --cases 10 --runs 2 --threads 2 --max-tokens 48
 */
import { cpus, loadavg } from "node:os";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createTestApp } from "../test/support/testApp.ts";
import { importPack, parsePackText } from "../src/packs/importPack.ts";
import { queueRun, runNextQueued } from "../src/loretests/loreTestService.ts";
import { arg, qwenFixturesOrExit } from "./support/benchArgs.ts";
import { indexAll } from "./support/indexAll.ts";

const { fx, qwen } = qwenFixturesOrExit("loretests");
const CASES = Number(arg("cases", "50"));
const RUNS = Number(arg("runs", "3"));
const THREADS = Number(arg("threads", "1"));
const MAX_TOKENS = Number(arg("max-tokens", "48"));

/** Questions per mind of the demo world, with what each answer should hold (mentions) and must not be given. */
const QUESTIONS: Record<string, { say: string; mentions: string[]; knowsFrom?: string; noLeakOf?: string }[]> = {
  garrick: [
    { say: "What is the name of the dark porter you brew here?", mentions: ["Wend Water", "porter"], knowsFrom: "rusty-tankard" },
    { say: "Have you heard any news of the salt caravan?", mentions: ["caravan", "salt", "wagons"] },
    { say: "Who owes you the most on his tab?", mentions: ["Tobias", "Crane", "tab"] },
    { say: "Is there a secret tunnel under the market square?", mentions: ["tunnel", "no", "never"], noLeakOf: "smugglers-tunnel" },
  ],
  "brother-aldous": [
    { say: "Who was Saint Wenna?", mentions: ["ferrywoman", "ferry", "river", "drowned"], knowsFrom: "greywater-abbey" },
    { say: "How many brothers live at the abbey?", mentions: ["twenty", "brothers", "monks"] },
    { say: "What happened in the Great Flood?", mentions: ["flood", "river", "water"] },
  ],
  mara: [
    { say: "What is the life of a bargewoman on the Wend like?", mentions: ["barge", "river", "Wend"] },
    { say: "Why did the river toll go up?", mentions: ["toll", "wall", "council"], noLeakOf: "abbey-secrets" },
  ],
  "captain-hesk": [
    { say: "What does the town watch do at the North Gate?", mentions: ["watch", "gate", "cells"] },
    { say: "Has anyone gone missing on the Old North Road?", mentions: ["caravan", "road", "salt"] },
  ],
  "nan-wicker": [{ say: "What would you give me for a fever?", mentions: ["willow", "tea", "fever", "herb"] }],
};

const minds = Object.keys(QUESTIONS);
const perMind = minds.map((m, i) => Math.floor(CASES / minds.length) + (i < CASES % minds.length ? 1 : 0));
const lines = ["tests:"];
minds.forEach((mind, mi) => {
  for (let k = 0; k < perMind[mi]; k++) {
    const q = QUESTIONS[mind][k % QUESTIONS[mind].length];
    const expect = [`mentions: ${JSON.stringify(q.mentions)}`];
    if (q.knowsFrom) expect.push(`knowsFrom: [${q.knowsFrom}]`);
    if (q.noLeakOf) expect.push(`noLeakOf: [${q.noLeakOf}]`);
    lines.push(`  - name: ${JSON.stringify(`${mind} ${k + 1}`)}`, `    mind: ${mind}`, `    runs: ${RUNS}`, `    passRate: 0.66`, `    turns:`, `      - say: ${JSON.stringify(q.say)}`, `        expect: { ${expect.join(", ")} }`);
  }
});

const t = await createTestApp({ model: qwen, modelsDir: fx.modelsDir, threads: THREADS, parallel: 1, contextSize: 2048, maxReplyTokens: MAX_TOKENS, generationTimeoutMs: 600_000 });
try {
  const pack = readFileSync(join(import.meta.dir, "../examples/thornhaven.yaml"), "utf8");
  const { projectId } = importPack(t.app.ctx, parsePackText(pack, "thornhaven.yaml"), { monthlyCredits: 1_000_000 });
  await indexAll(t.app);
  const load0 = loadavg()[0];
  queueRun(t.app.ctx, projectId, [{ file: "bench.test.yaml", text: lines.join("\n") + "\n" }]);
  const t0 = performance.now();
  const s = (await runNextQueued(t.app.ctx as never))!;
  const totalMs = performance.now() - t0;
  const turns = s.cases.flatMap((c) => c.runs.flatMap((r) => r.turns));
  const sum = (f: (x: (typeof turns)[number]) => number) => turns.reduce((n, x) => n + f(x), 0);
  const evaluated = sum((x) => x.timing.evaluatedPromptTokens);
  const prompt = sum((x) => x.timing.promptTokens);
  const runs = s.cases.flatMap((c) => c.runs);
  console.log(`machine: ${cpus()[0]?.model} × ${cpus().length}, load ${load0.toFixed(2)} → ${loadavg()[0].toFixed(2)}; model Qwen2.5-Coder-0.5B-Instruct Q4_K_M, ${THREADS} thread(s), reply cap ${MAX_TOKENS}`);
  console.log(`suite: ${s.cases.length} cases × ${RUNS} runs = ${turns.length} turns; ${s.passed}/${s.cases.length} cases passed, ${runs.filter((r) => r.passed).length}/${runs.length} runs`);
  console.log(`wall, whole run (scratch copy included): ${(totalMs / 1000).toFixed(1)} s; suite: ${(s.wallMs / 1000).toFixed(1)} s; generating: ${(s.generateMs / 1000).toFixed(1)} s`);
  console.log(`ratio wall ÷ generating: ${(totalMs / s.generateMs).toFixed(3)} (whole run), ${(s.wallMs / s.generateMs).toFixed(3)} (suite)`);
  console.log(`per turn: ${(s.generateMs / turns.length).toFixed(0)} ms generating, ${((s.wallMs - s.generateMs) / turns.length).toFixed(0)} ms overhead; first token ${(sum((x) => x.timing.firstTokenMs) / turns.length).toFixed(0)} ms`);
  console.log(`prompt tokens evaluated: ${evaluated} of ${prompt} (${((100 * evaluated) / Math.max(1, prompt)).toFixed(1)} %: the rest came from the mind's warm prefix)`);
} finally {
  await t.close();
}
