import { setDefaultTimeout, afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { buildWorld, type World } from "../support/world.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import type { BehaviourInput } from "../../src/behaviour/behaviourModel.ts";
import { ACT_MIN_PROBABILITY } from "../../src/behaviour/tailSchema.ts";
import type { GenerateResult } from "../../src/llm/types.ts";
import { watchGenerate } from "../support/capturePrompts.ts";

// Real llama.cpp on the random-weight tiny model, the action gate on (the server's default): the gate's reading is
// whatever the random weights give, so each turn is checked against its own recorded reading, never a sampled outcome.
setDefaultTimeout(600_000);
const MODEL = ensureTinyModel(undefined, { nCtx: 4096 });
const BEHAVIOUR: BehaviourInput = {
  emotions: ["neutral", "happy"],
  maxActionsPerTurn: 1,
  actions: [
    { name: "wave", description: "Wave at the player." },
    { name: "open_door", description: "Open a door.", params: { type: "object", properties: { door: { type: "string", enum: ["front", "back"] } } } },
  ],
};

let t: TestApp;
let w: World;
let admin: string;
/**
 * each sample's gate as the request carried it and as the engine read it (the real engine's result, recorded on the
 * way), with its turn: the reply guard may draw a turn's words again (e.g. for a made-up number), each with its tail
 */
const seen: { turn: number; threshold: number | undefined; reading: GenerateResult["tail"] }[] = [];
let turn = 0;

beforeAll(async () => {
  t = await createTestApp({ model: MODEL, parallel: 2, contextSize: 4096, maxReplyTokens: 6, threads: 1 });
  w = buildWorld(t.app.ctx as any, "Thornhaven", { index: "none" });
  await t.app.scheduler.trigger("indexer");
  admin = ensureAdminToken(t.app.db).adminToken;
  watchGenerate(t.app, {
    after: (req, r) => {
      if (req.tail) seen.push({ turn, threshold: req.tail.gate?.minProbability, reading: r.tail });
    },
  });
}, 120_000);
afterAll(() => t.close());

const setGate = async (actionGate?: number) => {
  const r = await t.call("PATCH", `/admin/v1/projects/${w.projectId}/minds/${w.minds.garrick}`, { key: admin, body: { behaviour: { ...BEHAVIOUR, ...(actionGate === undefined ? {} : { actionGate }) } } });
  expect(r.status).toBe(200);
};
const turns = async (n: number, player: string) => {
  seen.length = 0;
  const replies: any[] = [];
  for (let i = 0; i < n; i++) {
    turn = i;
    const r = await t.call("POST", "/v1/npc/interact", { key: w.keys.server, body: { text: `Good day ${i}, innkeeper.`, entityMindId: w.minds.garrick, playerId: player } });
    expect(r.status).toBe(200);
    replies.push(r.body.metadata.behaviour);
  }
  return replies;
};

describe("a mind's own action gate", () => {
  for (const threshold of [0.01, 0.99]) {
    test(`at ${threshold}: every turn's decision is its reading against ${threshold}, and the reply acts only when the gate let it`, async () => {
      await setGate(threshold);
      const replies = await turns(6, `p-gate-${threshold}`);
      expect(new Set(seen.map((s) => s.turn)).size).toBe(6);
      for (const { threshold: carried, reading } of seen) {
        expect(carried).toBe(threshold);
        const gate = reading!.gate!;
        expect(gate.took).toBe(gate.actProbability >= threshold ? "act" : "stay");
      }
      // the cooldown-free catalogue: a turn the gate let act names an action, one it stopped names none (the reply
      // is one of the turn's samples: when they all ended by stop and agree, the reply says the same)
      replies.forEach((reply, i) => {
        const samples = seen.filter((s) => s.turn === i && s.reading!.finishReason === "stop").map((s) => s.reading!.gate!.took);
        if (samples.length > 0 && samples.length === seen.filter((s) => s.turn === i).length && new Set(samples).size === 1) expect(reply.actions.length > 0).toBe(samples[0] === "act");
      });
    });
  }

  test("without one, the server's default threshold", async () => {
    await setGate();
    await turns(2, "p-gate-default");
    for (const s of seen) {
      expect(s.threshold).toBe(ACT_MIN_PROBABILITY);
      expect(s.reading!.gate!.took).toBe(s.reading!.gate!.actProbability >= ACT_MIN_PROBABILITY ? "act" : "stay");
    }
  });
});
