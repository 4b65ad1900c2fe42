import { describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { BehaviourModel } from "../../src/behaviour/behaviourModel.ts";
import { validateBehaviour } from "../../src/behaviour/validateBehaviour.ts";
import { resolveBehaviour, trustLabel } from "../../src/behaviour/resolveBehaviour.ts";
import { SHOPKEEPER } from "./fixtures.ts";

function problems(v: unknown): string[] {
  const out: string[] = [];
  validateBehaviour(v, "behaviour", (p, r) => out.push(`${p}: ${r}`));
  return out;
}

const action = (extra: Record<string, unknown> = {}) => ({ name: "wave", description: "Wave at the player.", ...extra });
const params = (properties: Record<string, unknown>) => ({ type: "object", properties });

describe("authoring a behaviour: every problem with its path", () => {
  const cases: Array<[string, unknown, string[]]> = [
    ["the full example", SHOPKEEPER, []],
    ["empty: defaults everywhere", {}, []],
    ["unknown field", { mood: "x" }, ["behaviour.mood: unknown field (known: emotions, actions, maxActionsPerTurn, trust, actionGate)"]],
    ["emotion not an identifier", { emotions: ["happy", "very sad"] }, [expect.stringContaining("behaviour.emotions[1]: must be an identifier")]],
    ["no emotions", { emotions: [] }, ["behaviour.emotions: at least 1 item"]],
    ["duplicate emotion", { emotions: ["happy", "happy"] }, ["behaviour.emotions[1]: duplicate emotion 'happy'"]],
    ["action name with a space", { actions: [action({ name: "give gold" })] }, [expect.stringContaining("behaviour.actions[0].name: must be an identifier")]],
    ["duplicate action", { actions: [action(), action()] }, ["behaviour.actions[1].name: duplicate action name 'wave'"]],
    ["an action named none (the tail's word for no action)", { actions: [action({ name: "none" })] }, ["behaviour.actions[0].name: 'none' is reserved: the tail's way to say no action"]],
    ["blank description", { actions: [action({ description: " " })] }, ["behaviour.actions[0].description: must be a non-empty string"]],
    ["33 actions", { actions: Array.from({ length: 33 }, (_, i) => action({ name: `a${i}` })) }, ["behaviour.actions: at most 32 items"]],
    [
      "17 params",
      { actions: [action({ params: params(Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`p${i}`, { type: "boolean" }]))) })] },
      ["behaviour.actions[0].params.properties: at most 16 entries"],
    ],
    ["param name not an identifier", { actions: [action({ params: params({ "the item": { type: "boolean" } }) })] }, [expect.stringContaining("behaviour.actions[0].params.properties.the item: must be an identifier")]],
    ["string without maxLength", { actions: [action({ params: params({ line: { type: "string" } }) })] }, [expect.stringContaining("behaviour.actions[0].params.properties.line: must be a parameter schema")]],
    ["string too long", { actions: [action({ params: params({ line: { type: "string", maxLength: 5000 } }) })] }, ["behaviour.actions[0].params.properties.line.maxLength: must be an integer from 1 to 200"]],
    ["unknown ref kind", { actions: [action({ params: params({ who: { type: "string", "x-ref": "quest" } }) })] }, ["behaviour.actions[0].params.properties.who.x-ref: must be one of mind, location, item"]],
    ["integer min above max", { actions: [action({ params: params({ n: { type: "integer", minimum: 5, maximum: 1 } }) })] }, ["behaviour.actions[0].params.properties.n.maximum: must be at least minimum"]],
    ["fractional bound", { actions: [action({ params: params({ n: { type: "integer", minimum: 0.5 } }) })] }, ["behaviour.actions[0].params.properties.n.minimum: must be an integer from -1000000000 to 1000000000"]],
    ["duplicate choice", { actions: [action({ params: params({ tone: { type: "string", enum: ["a", "a"] } }) })] }, ["behaviour.actions[0].params.properties.tone.enum[1]: duplicate choice 'a'"]],
    ["nested object param (depth is bounded)", { actions: [action({ params: params({ o: { type: "object", properties: {} } }) })] }, [expect.stringContaining("behaviour.actions[0].params.properties.o: must be a parameter schema")]],
    ["params not an object schema", { actions: [action({ params: { type: "array" } })] }, [expect.stringContaining("behaviour.actions[0].params.type: must be \"object\""), "behaviour.actions[0].params.properties: required"]],
    ["cooldown 0", { actions: [action({ cooldownTurns: 0 })] }, ["behaviour.actions[0].cooldownTurns: must be an integer from 1 to 1000"]],
    ["when blank", { actions: [action({ when: "" })] }, ["behaviour.actions[0].when: must be a non-empty string"]],
    ["trust min ≥ max", { trust: { min: 5, max: 5 } }, ["behaviour.trust.max: must be greater than min"]],
    ["trust initial outside", { trust: { min: 0, max: 10, initial: 11 } }, ["behaviour.trust.initial: must be within min..max (0..10)"]],
    ["trust only max, below the default min", { trust: { max: -20 } }, ["behaviour.trust: give min and max: the range -20..-20 is empty"]],
    ["labels falling", { trust: { labels: [{ min: 0, label: "a" }, { min: -5, label: "b" }] } }, ["behaviour.trust.labels[1].min: thresholds must rise: each min above the one before"]],
    ["label outside the range", { trust: { labels: [{ min: 50, label: "a" }] } }, ["behaviour.trust.labels[0].min: must be within min..max (-10..10)"]],
    ["step too big", { trust: { maxStep: 11 } }, ["behaviour.trust.maxStep: must be an integer from 1 to 10"]],
    ["an action gate of 0.05 and of 1 (the bounds' inside)", { actionGate: 0.05 }, []],
    ["an action gate of 1", { actionGate: 1 }, []],
    ["an action gate of 0 (every turn would act)", { actionGate: 0 }, ["behaviour.actionGate: must be a number above 0 and at most 1"]],
    ["an action gate above 1 (no turn could act)", { actionGate: 1.5 }, ["behaviour.actionGate: must be a number above 0 and at most 1"]],
    ["an action gate that is not a number", { actionGate: "high" }, ["behaviour.actionGate: must be a number above 0 and at most 1"]],
    [
      "several problems at once",
      { emotions: ["x", "x"], actions: [action({ name: "1a" }), action({ maxPerTurn: 9 })] },
      [expect.stringContaining("behaviour.actions[0].name"), "behaviour.actions[1].maxPerTurn: must be an integer from 1 to 8"],
    ],
  ];
  for (const [name, value, expected] of cases) {
    test(name, () => {
      expect(problems(value)).toEqual(expected as string[]);
    });
  }

  test("null means no behaviour", () => {
    expect(validateBehaviour(null, "behaviour", () => {})).toBeNull();
  });

  test("the TypeBox model (Swagger's, the admin API's) agrees on the shape of every valid case", () => {
    expect(Value.Check(BehaviourModel, SHOPKEEPER)).toBe(true);
    expect(Value.Check(BehaviourModel, { emotions: [] })).toBe(false);
    expect(Value.Check(BehaviourModel, { actionGate: 0.5 })).toBe(true);
    expect(Value.Check(BehaviourModel, { actionGate: 0 })).toBe(false);
    expect(Value.Check(BehaviourModel, { actionGate: 1.01 })).toBe(false);
    expect(Value.Check(BehaviourModel, { actions: [action({ params: params({ o: { type: "object", properties: {} } }) })] })).toBe(false);
  });
});

describe("defaults", () => {
  test("an empty behaviour: the seven emotions, no actions, no trust, 3 actions a turn", () => {
    expect(resolveBehaviour({})).toEqual({
      emotions: ["neutral", "happy", "sad", "angry", "afraid", "surprised", "disgusted"],
      actions: [],
      maxActionsPerTurn: 3,
      trust: null,
      actionGate: null,
    });
  });
  test("trust: -10..10 from 0 by 2, labelled hostile … devoted", () => {
    const t = resolveBehaviour({ trust: {} })!.trust!;
    expect(t).toMatchObject({ min: -10, max: 10, initial: 0, maxStep: 2 });
    expect([-10, -5, -1, 0, 4, 7, 8, 10].map((v) => trustLabel(t, v))).toEqual(["hostile", "hostile", "neutral", "neutral", "friendly", "friendly", "devoted", "devoted"]);
  });
  test("trust disabled is no trust", () => {
    expect(resolveBehaviour({ trust: { enabled: false } })!.trust).toBeNull();
  });
});
