import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { buildWorld, type World } from "../support/world.ts";
import { prepareBehaviour, type BehaviourTurn } from "../../src/behaviour/prepareBehaviour.ts";
import { settleBehaviour } from "../../src/behaviour/settleBehaviour.ts";
import { resolveBehaviour } from "../../src/behaviour/resolveBehaviour.ts";
import { readCooldowns } from "../../src/behaviour/cooldownStore.ts";
import { saveMindBehaviour } from "../../src/behaviour/mindBehaviour.ts";
import { writeTx } from "../../src/db/openDatabase.ts";
import type { TailResult } from "../../src/llm/types.ts";
import type { BehaviourInput } from "../../src/behaviour/behaviourModel.ts";

// The persist step on hand-written tails (no model): what is stored and answered for each kind of tail.
const BEHAVIOUR: BehaviourInput = {
  actions: [
    { name: "give_gold", description: "Pay.", params: { type: "object", properties: { amount: { type: "integer", minimum: 1, maximum: 100 } } } },
    { name: "wave", description: "Wave.", cooldownTurns: 2 },
  ],
  trust: { min: -3, max: 3, maxStep: 2 },
};
const b = resolveBehaviour(BEHAVIOUR)!;

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await createTestApp({}, { loadModel: false });
  w = buildWorld(t.app.ctx as any, "Thornhaven", { index: "none" });
  writeTx(t.app.db, () => saveMindBehaviour(t.app.ctx, w.projectId, w.minds.garrick, BEHAVIOUR));
});
afterAll(() => t.close());

const key = (playerId: string) => ({ projectId: w.projectId, mindId: w.minds.garrick, playerId });
const gather = (playerId: string): BehaviourTurn => prepareBehaviour(t.app.ctx, b, { key: key(playerId), history: [], visible: ["tavern"] });
const tail = (text: string, finishReason: TailResult["finishReason"] = "stop"): TailResult => ({ text, tokens: 20, evaluatedTokens: 5, ms: 10, finishReason });
const settle = (playerId: string, bt: BehaviourTurn, tr: TailResult | undefined) => writeTx(t.app.db, () => settleBehaviour(t.app.ctx, key(playerId), bt, tr));

describe("settling a turn's behaviour", () => {
  test("as written: stored, counted, the sampled text kept for rendering back", () => {
    const text = '{ "actions": [ {"name": "wave", "params": {}} ], "emotion": "happy", "intensity": 5, "trust": 1 }';
    const r = settle("p1", gather("p1"), tail(text));
    expect(r).toEqual({
      behaviour: { emotion: { name: "happy", intensity: 0.5 }, actions: [{ id: "a1-1", name: "wave", params: {} }], trust: { value: 1, delta: 1, label: "friendly" } },
      valid: true,
      notes: [],
      sampledTail: text,
    });
    expect(readCooldowns(t.app.db, key("p1"))).toEqual({ turns: 1, lastUsed: { wave: 1 } });
  });

  test("a use on cooldown since gather (a concurrent turn) is dropped, and the sampled text is not kept", () => {
    const stale = gather("p2");
    settle("p2", gather("p2"), tail('{"emotion":"neutral","intensity":0,"actions":[{"name":"wave","params":{}}],"trust":0}'));
    const r = settle("p2", stale, tail('{"emotion":"neutral","intensity":0,"actions":[{"name":"wave","params":{}}],"trust":0}'));
    expect(r.behaviour.actions).toEqual([]);
    expect(r.notes).toEqual(["dropped wave: on cooldown"]);
    expect(r.sampledTail).toBeUndefined();
    expect(readCooldowns(t.app.db, key("p2"))).toEqual({ turns: 2, lastUsed: { wave: 1 } });
  });

  test("a clamped parameter or a bounded trust step: the settled values, not the written ones, are kept", () => {
    const r = settle("p3", gather("p3"), tail('{"emotion":"angry","intensity":1,"actions":[{"name":"give_gold","params":{"amount":5000}}],"trust":2}'));
    expect(r.behaviour.actions[0].params).toEqual({ amount: 100 });
    expect(r.sampledTail).toBeUndefined();
    settle("p3", gather("p3"), tail('{"emotion":"angry","intensity":1,"actions":[{"name":"none"}],"trust":2}'));
    const top = settle("p3", gather("p3"), tail('{"emotion":"angry","intensity":1,"actions":[{"name":"none"}],"trust":2}'));
    expect(top.behaviour.trust).toEqual({ value: 3, delta: 0, label: "devoted" });
    expect(top.sampledTail).toBeUndefined();
  });

  const unusable: Array<[string, TailResult | undefined]> = [
    ["no tail (a backend without one)", undefined],
    ["cut by the token budget", tail('{"emotion":"happy","intensity":0.5,"act', "length")],
    ["not JSON", tail("happy")],
  ];
  for (const [name, tr] of unusable) {
    test(`${name}: neutral, nothing done, trust unchanged, the turn still counted`, () => {
      const player = `p-${name.length}`;
      const before = readCooldowns(t.app.db, key(player)).turns;
      const r = settle(player, gather(player), tr);
      expect(r.valid).toBe(false);
      expect(r.behaviour).toEqual({ emotion: { name: "neutral", intensity: 0 }, actions: [], trust: { value: 0, delta: 0, label: "neutral" } });
      expect(readCooldowns(t.app.db, key(player)).turns).toBe(before + 1);
    });
  }
});
