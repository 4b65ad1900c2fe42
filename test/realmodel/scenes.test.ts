import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { qwenFixture, realFixtures } from "./realFixtures.ts";
import { realWorld, type RealWorld } from "./realWorld.ts";
import { watchGenerate } from "../support/capturePrompts.ts";

// Knowledge per speaker on a real 0.5B instruct model, through POST /v1/scenes/{id}/turn: Odile (the harbourmaster)
// sees the fish market's lore, Bram (the lighthouse keeper) does not. Bram is probed before Odile speaks (his prompt
// must hold nothing of the market's lore, and he must not name both days), then after she has said them aloud.
const fx = realFixtures();
const qwen = qwenFixture();
const bothDays = (s: string) => /tuesday/i.test(s) && /saturday/i.test(s);

describe.skipIf(!fx || !qwen)("scenes on Qwen2.5-Coder-0.5B-Instruct: what is said aloud crosses minds, nothing else", () => {
  let w: RealWorld;
  const prompts: { key: string; text: string }[] = [];
  beforeAll(async () => {
    w = await realWorld(fx!, qwen!, { maxReplyTokens: 40 }, "examples/saltmarsh-quality.yaml");
    watchGenerate(w.t.app, { before: (req) => void prompts.push({ key: req.conversationKey, text: req.messages.map((m) => m.content).join("\n") }) });
  }, 120_000);
  afterAll(() => w?.t.close());

  // Per trial two scenes, both with Odile at the table (unseeded sampling at the minds' temperatures: a fresh draw
  // on any CPU). In the first Bram is probed before Odile has said anything: his prompt never holds the market's
  // lore or its days (asserted exactly: what reaches a speaker is the production path's to decide, not the model's),
  // and he named both days in 0 of 6 one-to-one draws (test/realmodel/qwen.test.ts), so "not both days" fails only
  // if he guesses two weekdays right. In the second Odile is asked first, then Bram: her line is in his prompt word
  // for word (the positive control, asserted exactly), the market's lore still is not. Whether the 0.5B model then
  // says the days is a rate of the model, not of the server: logged, and recorded in BENCHMARKS.md "Scenes"
  // (measured in two runs: Odile said both days in 2 of 3 and 3 of 3 scenes, Bram repeated them in 1 of 2 and 2 of 3), not asserted.
  // (Asking Odile after Bram's wrong answer to the same question measured worse: she repeated his line in 3 of 3.)
  test("Bram's prompt holds the market days only after Odile says them aloud, and never her lore", async () => {
    const turn = (sceneId: string, text: string, speaker: string) =>
      w.t.call("POST", `/v1/scenes/${sceneId}/turn`, { key: w.serverKey, body: { text, speaker } });
    const newScene = async (playerId: string) => {
      const r = await w.t.call("POST", "/v1/scenes", { key: w.serverKey, body: { minds: [w.minds.odile, w.minds.bram], playerId, location: "the north quay" } });
      expect(r.status).toBe(200);
      return r.body.sceneId as string;
    };
    const bramPrompts = () => prompts.filter((p) => p.key.includes(`:${w.minds.bram}:`)).map((p) => p.text);
    let saidAloud = 0;
    let heard = 0;
    const log: string[] = [];
    for (let i = 1; i <= 3; i++) {
      prompts.length = 0;
      const before = await turn(await newScene(`scene-before-${i}`), "Bram, on which days is the fish market held?", w.minds.bram);
      expect(before.status).toBe(200);
      expect(bramPrompts().length).toBeGreaterThan(0);
      for (const p of bramPrompts()) {
        expect(p).not.toContain("The Fish Market");
        expect(p).not.toMatch(/tuesday|saturday/i);
      }
      expect(bothDays(before.body.lines[0].response)).toBe(false);

      const id = await newScene(`scene-after-${i}`);
      const odile = await turn(id, "Odile, on which days is the fish market held?", w.minds.odile);
      expect(odile.status).toBe(200);
      const said = odile.body.lines[0].response as string;
      prompts.length = 0;
      const after = await turn(id, "Bram, you heard her. So on which days is the fish market held?", w.minds.bram);
      expect(after.status).toBe(200);
      const reply = after.body.lines[0].response as string;
      const ps = bramPrompts();
      expect(ps[0]).toContain(`Odile Marsh said: "${said.trim()}"`);
      for (const p of ps) expect(p).not.toContain("About The Fish Market");
      if (bothDays(said)) expect(bothDays(ps[0])).toBe(true); // the days reach Bram only as Odile's words
      if (bothDays(said)) {
        saidAloud++;
        if (bothDays(reply)) heard++;
      }
      log.push(`before ${JSON.stringify(before.body.lines[0].response)} | Odile ${JSON.stringify(said)} | after ${JSON.stringify(reply)}`);
    }
    console.log(`[realmodel] scenes: Odile said both days in ${saidAloud}/3, Bram repeated them after hearing in ${heard}/${saidAloud}\n${log.join("\n")}`);
  }, 900_000);
});
