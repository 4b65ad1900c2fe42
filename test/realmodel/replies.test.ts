import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { interact } from "../../src/npc/interactService.ts";
import type { ReplyGuardReport } from "../../src/npc/replies/generateReply.ts";
import { splitSentences } from "../../src/npc/replies/sentences.ts";
import { validateInteract } from "../../src/npc/validateInteract.ts";
import { qwenFixture, realFixtures } from "./realFixtures.ts";
import { hardProblems } from "./replyChecks.ts";
import { realWorld, type RealWorld } from "./realWorld.ts";

// Replies in character on real weights (src/npc/replies): the sentence limit and the reply guard. The turns are
// unseeded (a fresh draw every run, on any CPU): what is asserted is either a property every reply has by
// construction, or a rate over several turns with its bound's reason beside it.
const fx = realFixtures();
const qwen = qwenFixture();

/** Lines that invite a long answer: a small model left alone runs on for several sentences. */
const OPEN = [
  "Tell me everything about the lighthouse and your life out there.",
  "Describe the light, the lamp and the rock in as much detail as you can.",
  "What is a day like for you, from morning to night?",
  "Tell me about the sea, the ships and the people who pass by.",
  "What do you think about when you are alone at night?",
  "Tell me a long story about the worst storm you remember.",
];

describe.skipIf(!fx)("the sentence limit on SmolLM2-135M-Instruct (real weights)", () => {
  let w: RealWorld;
  beforeAll(async () => {
    w = await realWorld(fx!, fx!.smol, { maxReplyTokens: 96 }, "examples/saltmarsh-quality.yaml");
    // Bram says one sentence; Odile (terse) two by her verbosity.
    const admin = (await import("../../src/admin/adminToken.ts")).ensureAdminToken(w.t.app.db).adminToken;
    const r = await w.t.call("PATCH", `/admin/v1/projects/${w.projectId}/minds/${w.minds.bram}`, { key: admin, body: { responseConfig: { verbosity: "terse", maxSentences: 1 } } });
    expect(r.status).toBe(200);
  }, 120_000);
  afterAll(() => w?.t.close());

  test("every reply has at most the mind's sentences and ends at a sentence end when the limit ended it", async () => {
    let capped = 0;
    for (const [i, text] of OPEN.entries()) {
      for (const [mind, max] of [["bram", 1], ["odile", 2]] as const) {
        const r = await w.interact(mind, `cap-${mind}-${i}`, text);
        expect(r.status).toBe(200);
        const reply = r.body.response as string;
        const n = splitSentences(reply).length;
        // A property of every reply (the shaper cuts at the limit's sentence end, streamed or not): any CPU, any draw.
        expect(n).toBeLessThanOrEqual(max);
        expect(hardProblems(reply)).toEqual([]);
        if (n === max && /[.!?…]["'”’)\]]*$/.test(reply)) capped++;
      }
    }
    const metrics = await (await w.t.app.handle(new Request("http://localhost/metrics"))).text();
    const stops = Number(/lorehold_reply_stops_total\{why="sentences"\} (\d+)/.exec(metrics)?.[1] ?? 0);
    console.log(`[realmodel] sentence limit: ${stops} of ${OPEN.length * 2} replies ended by it; ${capped} end at their last allowed sentence`);
    // SmolLM2 runs past one or two sentences in most draws of these lines (11 of 12 here, Xeon, 1 thread): ended by
    // the limit in fewer than 3 of 12 would take a rate below ~45% (a 0.7% event at 11/12); 3 is a safe floor.
    expect(stops).toBeGreaterThanOrEqual(3);
  }, 1_800_000);
});

describe.skipIf(!fx || !qwen)("the reply guard on Qwen2.5-Coder-0.5B-Instruct (real weights)", () => {
  let w: RealWorld;
  beforeAll(async () => {
    w = await realWorld(fx!, qwen!, { maxReplyTokens: 48 }, "examples/saltmarsh-quality.yaml");
  }, 120_000);
  afterAll(() => w?.t.close());

  // A line that asks to be repeated word for word: the model's first sample often echoes it.
  const ECHO = [
    "Repeat after me, word for word: The grey gulls circle the quay at dawn.",
    "Say exactly this back to me: The grey gulls circle the quay at dawn.",
    "Please repeat my words exactly: The grey gulls circle the quay at dawn.",
  ];

  test("a first sample that echoes the player is never returned as is: the guard samples again", async () => {
    const reports: { reply: string; g: ReplyGuardReport }[] = [];
    for (let i = 0; i < 6; i++) {
      let g: ReplyGuardReport | null = null;
      const req = validateInteract({ text: ECHO[i % ECHO.length], entityMindId: w.minds.odile, playerId: `echo-${i}` });
      const r = await interact(w.t.app.ctx as any, { keyId: "t", projectId: w.projectId, type: "server" }, req, { onGuard: (x) => (g = x) });
      reports.push({ reply: r.response, g: g! });
    }
    const echoed = reports.filter((x) => x.g.attempts[0].problems.some((p) => p.kind === "echo"));
    for (const x of echoed) {
      // The decision path, a property: an echo found in the first sample of an unstreamed reply always brings another,
      expect(x.g.attempts.length).toBeGreaterThanOrEqual(2);
      // the guard stops at the first clean sample, and returns one with a problem only when every sample had one.
      expect(x.g.attempts.slice(0, -1).every((a) => a.problems.length > 0)).toBe(true);
      if (x.g.attempts[x.g.chosen - 1].problems.length > 0) expect(x.g.attempts.every((a) => a.problems.length > 0)).toBe(true);
    }
    console.log(`[realmodel] guard: ${echoed.length}/6 first samples echoed; returned: ${JSON.stringify(reports.map((x) => x.reply.slice(0, 80)))}`);
    // Qwen echoed the first sample in 5 of 6 of these turns here (Xeon, 1 thread): at a rate of even 35% the chance
    // of no echo in 6 draws is 7.5%, so at least one is asked for — otherwise the test saw no decision to check.
    expect(echoed.length).toBeGreaterThanOrEqual(1);
  }, 1_800_000);
});
