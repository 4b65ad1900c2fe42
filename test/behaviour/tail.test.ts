import { describe, expect, test } from "bun:test";
import { resolveBehaviour, type Behaviour } from "../../src/behaviour/resolveBehaviour.ts";
import { INTENSITIES, TAIL_TOKEN_CAP, tailLengthBound, tailSchema, tailTokenBound } from "../../src/behaviour/tailSchema.ts";
import { conditionsUnavailable, offerActions, type OfferInput } from "../../src/behaviour/offerActions.ts";
import { parseTail } from "../../src/behaviour/parseTail.ts";
import { validatorFor } from "../../src/generation/structured.ts";
import { REFS, SHOPKEEPER } from "./fixtures.ts";

const b = resolveBehaviour(SHOPKEEPER)!;
const base: OfferInput = { turn: 1, lastUsed: {}, when: conditionsUnavailable, refs: REFS };
const names = (o: { offered: { name: string }[] }) => o.offered.map((a) => a.name);

describe("which actions a turn offers", () => {
  const cases: Array<[string, Partial<OfferInput>, string[], string[]]> = [
    ["all but the one gated by an unevaluated `when`", {}, ["give_item", "give_gold", "say_to"], []],
    ["availableActions narrows; unknown names are ignored", { availableActions: ["give_gold", "fly", "give_gold"] }, ["give_gold"], ["fly"]],
    ["an empty availableActions offers nothing", { availableActions: [] }, [], []],
    ["a true `when` opens its action", { when: () => ({ value: true }) }, ["give_item", "give_gold", "say_to", "close_shop"], []],
    ["used at turn 3 with cooldown 2: not at 4 or 5", { turn: 5, lastUsed: { give_gold: 3 } }, ["give_item", "say_to"], []],
    ["… and offered again at 6", { turn: 6, lastUsed: { give_gold: 3 } }, ["give_item", "give_gold", "say_to"], []],
    ["an action without a cooldown is offered right after a use", { turn: 2, lastUsed: { give_item: 1 } }, ["give_item", "give_gold", "say_to"], []],
    ["a reference with nothing to name withholds its action", { refs: { ...REFS, item: [] } }, ["give_gold", "say_to"], []],
  ];
  for (const [name, input, offered, ignored] of cases) {
    test(name, () => {
      const o = offerActions(b, { ...base, ...input });
      expect(names(o)).toEqual(offered);
      expect(o.ignored).toEqual(ignored);
      expect(o.narrowed).toBe(offered.length < b.actions.length);
      expect(o.withheld.map((w) => w.name).sort()).toEqual(b.actions.map((a) => a.name).filter((n) => !offered.includes(n)).sort());
    });
  }
  test("the preview learns why an action is withheld", () => {
    const o = offerActions(b, { ...base, turn: 4, lastUsed: { give_gold: 3 }, availableActions: ["give_gold", "say_to", "close_shop"] });
    expect(o.withheld).toEqual([
      { name: "give_item", reason: "not in availableActions" },
      { name: "give_gold", reason: "cooldown: offered again in 2 turns" },
      { name: "close_shop", reason: "when is false (quest.flood.stage > 2): no condition scope to check it against" },
    ]);
  });
});

describe("the tail's schema", () => {
  test("emotions, intensities, one variant per offered action with its parameter schemas, the trust step", () => {
    const s = tailSchema(b, offerActions(b, base).offered, REFS) as any;
    // the actions first, right after the words that announce them
    expect(Object.keys(s.properties)).toEqual(["actions", "emotion", "intensity", "trust"]);
    expect(s.required).toEqual(["actions", "emotion", "intensity", "trust"]);
    expect(s.additionalProperties).toBe(false);
    expect(s.properties.emotion.enum).toEqual(["neutral", "happy", "angry", "afraid"]);
    expect(s.properties.intensity.enum).toEqual([...INTENSITIES]);
    expect(s.properties.trust.enum).toEqual([-2, -1, 0, 1, 2]);
    // "none" is a choice like the others, so the list is never empty; chosen, it stands alone
    const [onlyNone, acts] = s.properties.actions.oneOf;
    expect(onlyNone).toEqual({ type: "array", items: { type: "object", properties: { name: { const: "none" } }, required: ["name"], additionalProperties: false }, minItems: 1, maxItems: 1 });
    expect(acts.maxItems).toBe(3);
    expect(acts.minItems).toBe(1);
    const [item, gold, say] = acts.items.oneOf;
    expect(item.properties.name).toEqual({ const: "give_item" });
    expect(item.properties.params.properties).toEqual({ item: { type: "string", enum: ["Iron key", "Map of the tunnels"] }, count: { type: "integer", enum: [1, 2, 3, 4, 5] } });
    expect(gold.properties.params.properties.amount).toEqual({ type: "integer", minimum: 1, maximum: 100 }); // wider than an enum: bounded by the grammar
    expect(say.properties.params.properties).toEqual({
      who: { type: "string", enum: ["Elena", "Garrick"] },
      line: { type: "string", maxLength: 40 },
      tone: { type: "string", enum: ["calm", "urgent"] },
      loud: { type: "boolean" },
    });
  });
  test("nothing offered: the list can only be [none]; no trust: no trust field", () => {
    const none = resolveBehaviour({ emotions: ["calm"] })!;
    const s = tailSchema(none, [], REFS) as any;
    expect(Object.keys(s.properties)).toEqual(["actions", "emotion", "intensity"]);
    expect(s.properties.actions).toMatchObject({ type: "array", minItems: 1, maxItems: 1, items: { properties: { name: { const: "none" } } } });
    expect(validatorFor(s)({ actions: [{ name: "none" }, { name: "none" }], emotion: "calm", intensity: 0 })).toBe(false);
    expect(validatorFor(s)({ actions: [], emotion: "calm", intensity: 0 })).toBe(false);
    expect(validatorFor(s)({ actions: [{ name: "none" }], emotion: "calm", intensity: 0 })).toBe(true);
  });
  test("one offered action with maxPerTurn 1: at most one item", () => {
    const o = offerActions(b, { ...base, availableActions: ["give_item"] });
    const s = tailSchema(b, o.offered, REFS) as any;
    const [onlyNone, acts] = s.properties.actions.oneOf;
    expect(onlyNone.items.properties.name).toEqual({ const: "none" });
    expect(acts.maxItems).toBe(1);
    expect(acts.items.properties.name).toEqual({ const: "give_item" });
  });
  test("the token bound covers the longest tail the schema allows, within the cap", () => {
    const s = tailSchema(b, offerActions(b, base).offered, REFS);
    const bound = tailLengthBound(s);
    // Every character of the line written as a six-byte escape, the longest form the grammar allows.
    const longest = JSON.stringify({
      actions: Array.from({ length: 3 }, () => ({ name: "say_to", params: { who: "Garrick", line: "@".repeat(40), tone: "urgent", loud: false } })),
      emotion: "neutral",
      intensity: 10,
      trust: -2,
    }).replaceAll("@", "\\u0040");
    expect(bound).toBeGreaterThan(longest.length);
    expect(tailTokenBound(s)).toBe(Math.min(bound, TAIL_TOKEN_CAP));
  });
});

describe("parsing a tail", () => {
  const offered = offerActions(b, base).offered;
  const schema = tailSchema(b, offered, REFS);
  const parse = (v: unknown, turn = 7, bh: Behaviour = b) => parseTail(typeof v === "string" ? v : JSON.stringify(v), schema, bh, offered, turn);
  const tail = (actions: unknown[], extra: Record<string, unknown> = {}) => ({ emotion: "happy", intensity: 6, actions, trust: 1, ...extra });

  test("a valid tail: emotion, ids unique in the conversation, params as given, the trust step", () => {
    const r = parse(tail([{ name: "give_item", params: { item: "Iron key", count: 2 } }, { name: "say_to", params: { who: "Elena", line: "Hi", tone: "calm", loud: true } }]));
    expect(r).toEqual({
      emotion: { name: "happy", intensity: 0.6 },
      actions: [
        { id: "a7-1", name: "give_item", params: { item: "Iron key", count: 2 } },
        { id: "a7-2", name: "say_to", params: { who: "Elena", line: "Hi", tone: "calm", loud: true } },
      ],
      trustDelta: 1,
      valid: true,
      notes: [],
    });
  });
  test("integers are clamped to their bounds, an exponent made whole", () => {
    const r = parse('{"emotion":"angry","intensity":1,"actions":[{"name":"give_gold","params":{"amount":1e9}}],"trust":-2}');
    expect(r.actions).toEqual([{ id: "a7-1", name: "give_gold", params: { amount: 100 } }]);
    expect(r.notes).toEqual(["give_gold.amount: 1000000000 clamped to 100"]);
    expect(parse('{"emotion":"angry","intensity":1,"actions":[{"name":"give_gold","params":{"amount":5e-3}}],"trust":0}').actions[0].params.amount).toBe(1);
    expect(parse('{"emotion":"angry","intensity":1,"actions":[{"name":"give_gold","params":{"amount":-1e999}}],"trust":0}').actions[0].params.amount).toBe(1);
  });
  test("maxPerTurn: a second give_item is dropped", () => {
    const r = parse(tail([{ name: "give_item", params: { item: "Iron key", count: 1 } }, { name: "give_item", params: { item: "Iron key", count: 1 } }]));
    expect(r.actions.map((a) => a.name)).toEqual(["give_item"]);
    expect(r.notes).toEqual(["dropped a use of give_item: over its limit per turn"]);
  });
  const invalid: Array<[string, unknown]> = [
    ["cut short", '{"emotion":"happy","intensity":0.6,"acti'],
    ["an action not offered", tail([{ name: "close_shop", params: {} }])],
    ["an unknown emotion", tail([], { emotion: "smug" })],
    ["a trust step past maxStep", tail([], { trust: 5 })],
    ["a reference to nobody", tail([{ name: "say_to", params: { who: "Nobody", line: "x", tone: "calm", loud: true } }])],
    ["a missing parameter", tail([{ name: "give_item", params: { item: "Iron key" } }])],
    ["an extra field", tail([], { gold: 1000 })],
    ["an action after none", tail([{ name: "none" }, { name: "give_gold", params: { amount: 5 } }])],
  ];
  for (const [name, text] of invalid) {
    test(`unusable (${name}): neutral, nothing done, trust unchanged`, () => {
      const r = parse(text);
      expect(r).toMatchObject({ emotion: { name: "neutral", intensity: 0 }, actions: [], trustDelta: 0, valid: false });
    });
  }
  test("the validator used is the grammar's schema: every valid case passes Ajv as sent", () => {
    expect(validatorFor(schema)(tail([{ name: "none" }]))).toBe(true);
  });
  test('"none" means no action, and stands alone (the grammar closes the list after it)', () => {
    expect(parse(tail([{ name: "none" }])).actions).toEqual([]);
    expect(parse(tail([{ name: "none" }])).valid).toBe(true);
    expect(parse(tail([{ name: "give_gold", params: { amount: 3 } }, { name: "none" }])).valid).toBe(false);
  });
  test("an empty list is not a tail the grammar writes: unusable", () => {
    expect(parse(tail([])).valid).toBe(false);
  });
});
