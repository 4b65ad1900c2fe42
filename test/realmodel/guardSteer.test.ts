import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { prepareTurn } from "../../src/npc/prepareTurn.ts";
import { validateInteract } from "../../src/npc/validateInteract.ts";
import { turnGuard } from "../../src/npc/replies/turnGuard.ts";
import { echoOf } from "../../src/npc/replies/detectors.ts";
import { generateReply, GUARD_POLICY } from "../../src/npc/replies/generateReply.ts";
import { steerAway } from "../../src/npc/replies/steer.ts";
import { qwenFixture, realFixtures } from "./realFixtures.ts";
import { realWorld, type RealWorld } from "./realWorld.ts";

// The reply guard's steered resample on real weights: after an echo, the next sample's tokens of the player's line
// are biased down (src/npc/replies/steer.ts). Each draw is seeded, and the two arms share the seed: what differs is
// the bias alone. Asserted are counts over many draws, with each bound's reason beside it, never one sample.
const fx = realFixtures();
const qwen = qwenFixture();

/** Lines that ask to be repeated word for word: the player invites the echo the guard must not return. */
const FORCED = [
  "Repeat after me, word for word: The grey gulls circle the quay at dawn.",
  "Say exactly this back to me: The grey gulls circle the quay at dawn.",
  "Please repeat my words exactly: The grey gulls circle the quay at dawn.",
];
const SEEDS = [11, 23, 37, 41];

describe.skipIf(!fx || !qwen)("the guard steers its resample away from an echo, on Qwen2.5-Coder-0.5B-Instruct (real weights)", () => {
  let w: RealWorld;
  beforeAll(async () => {
    w = await realWorld(fx!, qwen!, { maxReplyTokens: 40 }, "examples/saltmarsh-quality.yaml");
  }, 300_000);
  afterAll(() => w?.t.close());

  test("the same seeds echo far less often steered than not, and the guard's reply to a forced echo is rarely one", async () => {
    let plain = 0;
    let steered = 0;
    let returned = 0;
    let firstEchoed = 0;
    const seen: string[] = [];
    for (const line of FORCED) {
      const p = await prepareTurn(w.t.app.ctx as any, w.projectId, validateInteract({ text: line, entityMindId: w.minds.odile, playerId: "steer" }));
      const guard = turnGuard(p, line);
      const avoid = steerAway([{ kind: "echo", detail: "" }], guard.context);
      for (const seed of SEEDS) {
        const base = { conversationKey: "steer", messages: p.messages, maxTokens: 40, temperature: p.temperature, seed, minTokens: 1 };
        const a = await w.t.app.ctx.generation!.generate(base);
        const b = await w.t.app.ctx.generation!.generate({ ...base, avoid });
        if (echoOf(a.text, line)) plain++;
        if (echoOf(b.text, line)) steered++;
        // The whole guard with its default policy, on the same seed.
        const g = await generateReply(w.t.app.ctx.generation!, base, guard, GUARD_POLICY);
        if (g.report.attempts[0].problems.some((x) => x.kind === "echo")) firstEchoed++;
        if (echoOf(g.result.text, line)) returned++;
        seen.push(`${seed}: ${JSON.stringify(a.text.slice(0, 60))} | steered ${JSON.stringify(b.text.slice(0, 60))} | guard ${JSON.stringify(g.result.text.slice(0, 60))}`);
      }
    }
    const n = FORCED.length * SEEDS.length;
    console.log(`[realmodel] steer: echoes plain ${plain}/${n}, steered ${steered}/${n}; guard: first sample echoed ${firstEchoed}, returned an echo ${returned}\n  ${seen.join("\n  ")}`);
    // Bounds (12 draws an arm). Plain: Qwen echoes these lines in most first samples (11 of 12 here, Xeon, 1 thread):
    // at a true rate of even 40 %, fewer than 2 of 12 has a 2 % chance, so the test sees echoes to steer from.
    // Steered: every distinctive word of the line is 4 logits down, so a copy must beat an alternative at each of
    // them; 0 of 12 echoed here (the model paraphrases instead: "The gray gulls circulate the quay at dawn."). The
    // asserted margin, steered at most half of plain, leaves room for a steered rate several times the one seen here.
    expect(plain).toBeGreaterThanOrEqual(2);
    expect(steered * 2).toBeLessThanOrEqual(plain);
    // The guard: up to three samples, each after the first steered. Returned echoes at most a quarter of the draws
    // (3 of 12): with a first-sample echo rate p and a steered one q, about p·q² come back (0 of 12 here).
    expect(returned).toBeLessThanOrEqual(3);
  }, 3_600_000);
});
