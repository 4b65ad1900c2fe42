import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { qwenFixture, realFixtures } from "./realFixtures.ts";
import { realWorld, type RealWorld } from "./realWorld.ts";
import { queueRun, runNextQueued } from "../../src/loretests/loreTestService.ts";

// The demo world's reply suite (examples/thornhaven-replies.test.yaml) on a real 0.5B instruct model, through the
// lore test runner: five cases, three unseeded runs each, each case needing two of its three runs. Sampling differs
// per CPU, so the test asserts a rate, not a fixed sample: see the bound below.
const fx = realFixtures();
const qwen = qwenFixture();

describe.skipIf(!fx || !qwen)("lore tests on Qwen2.5-Coder-0.5B-Instruct (real weights)", () => {
  let w: RealWorld;
  beforeAll(async () => {
    w = await realWorld(fx!, qwen!, { maxReplyTokens: 64 });
  }, 120_000);
  afterAll(() => w?.t.close());

  // Measured here (Xeon, AVX-512, 1 thread, a loaded 2-core machine): 14 of 15 runs, then 13 of 15 (every case met
  // its 2-of-3). The bound: at least 8 of the 15 runs, more than half. Runs are unseeded, so each is an independent
  // draw on any CPU, and another CPU's kernels shift the rate: at a true run rate of 0.75 (well under the 0.9
  // measured) fewer than 8 of 15 happens 1.7% of the time, at 0.8 0.4%. A random-weight model passes none. The
  // structural checks (knowsFrom, noLeakOf) hold on every run by construction: the lore reaching the prompt does not
  // depend on the sample. Each `mentions` list holds several of the lore's own words, so a run fails only when the
  // reply talks past the question. Under the bound, the failing runs' replies and checks are what the test shows.
  test("the reply suite: mentions hold in most sampled runs, structure in all", async () => {
    const files = [{ file: "thornhaven-replies.test.yaml", text: readFileSync(join(import.meta.dir, "../../examples/thornhaven-replies.test.yaml"), "utf8") }];
    queueRun(w.t.app.ctx, w.projectId, files);
    const s = (await runNextQueued(w.t.app.ctx as never))!;
    const runs = s.cases.flatMap((c) => c.runs);
    const passedRuns = runs.filter((r) => r.passed).length;
    for (const c of s.cases) {
      console.log(`[realmodel] lore tests: ${c.name}: ${c.runs.filter((r) => r.passed).length}/${c.runs.length}; e.g. ${JSON.stringify(c.runs[0].turns[0].reply.slice(0, 160))}`);
    }
    console.log(`[realmodel] lore tests: ${passedRuns}/${runs.length} runs, ${s.passed}/${s.cases.length} cases; ${(s.wallMs / 1000).toFixed(1)} s wall, ${(s.generateMs / 1000).toFixed(1)} s generating`);
    // structure on every run: nothing errored, every knowsFrom check passed, and no noLeakOf document reached a
    // prompt. The noLeakOf judge also reads the reply (two words only the document has), and that part is a
    // sample's: asked "Is there a secret tunnel under the market square?", a reply that makes up a tunnel "buried
    // beneath the square, twenty feet down" says two of the secret's ordinary words without having seen it. So the
    // reply part is held to a rate: at most one such verdict in the 15 runs (seen once in a full suite run, never twice).
    expect(runs.filter((r) => r.error).map((r) => r.error)).toEqual([]);
    const structural = runs.flatMap((r) => r.turns.flatMap((t) => t.checks.filter((c) => /^(knowsFrom|noLeakOf) /.test(c.check))));
    const byReply = (c: { detail: string }) => c.detail.startsWith("the reply tells");
    expect(structural.filter((c) => !c.pass && !byReply(c))).toEqual([]);
    expect(structural.filter((c) => !c.pass && byReply(c)).length).toBeLessThanOrEqual(1);
    const failing = s.cases.flatMap((c) =>
      c.runs
        .filter((r) => !r.passed)
        .map((r) => `${c.name}: ${r.error ?? r.turns.map((t) => `${JSON.stringify(t.reply.slice(0, 160))} failed ${t.checks.filter((x) => !x.pass).map((x) => x.check).join("; ")}`).join(" | ")}`),
    );
    expect(passedRuns >= 8 ? [] : failing).toEqual([]);
  }, 1_200_000);
});
