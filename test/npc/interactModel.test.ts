import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { InteractBody } from "../../src/npc/interactModel.ts";
import { INTERACT_LIMITS as L } from "../../src/npc/interactLimits.ts";
import { INTERACT_PRECEDENCE, validateInteract } from "../../src/npc/validateInteract.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { accepts as acceptsOf } from "../support/accepts.ts";

const ok = { text: "Hello there", entityMindId: "mind_1", playerId: "player-1" };
const s = (n: number) => "a".repeat(n);
const accepts = acceptsOf(validateInteract);

/** Bodies at and just past each limit: the model (Swagger's) and the ordered validator must agree on every one. */
const BODIES: Array<[string, unknown]> = [
  ["minimal", ok],
  ["full", { ...ok, context: { location: "x", custom: s(L.contextCustomChars), recentEvents: ["a"] }, memory: { retrieve: true }, activeKnowledgeTags: ["t"], conversationHistory: [{ role: "assistant", content: "hi" }] }],
  ["null context values", { ...ok, context: { location: null, nearbyObjects: null } }],
  ["empty memory", { ...ok, memory: {} }],
  ["text at limit", { ...ok, text: s(L.textChars) }],
  ["text past limit", { ...ok, text: s(L.textChars + 1) }],
  ["text whitespace", { ...ok, text: "  " }],
  ["text missing", { entityMindId: "m", playerId: "p" }],
  ["mind empty", { ...ok, entityMindId: "" }],
  ["mind number", { ...ok, entityMindId: 3 }],
  ["player at limit", { ...ok, playerId: s(L.playerIdChars) }],
  ["player past limit", { ...ok, playerId: s(L.playerIdChars + 1) }],
  ["unknown field", { ...ok, x: 1 }],
  ["unknown context field", { ...ok, context: { smell: "x" } }],
  ["unknown memory field", { ...ok, memory: { forget: true } }],
  ["tags at limit", { ...ok, activeKnowledgeTags: Array.from({ length: L.activeTags }, () => s(L.activeTagChars)) }],
  ["tags past count", { ...ok, activeKnowledgeTags: Array.from({ length: L.activeTags + 1 }, () => "t") }],
  ["tag past length", { ...ok, activeKnowledgeTags: [s(L.activeTagChars + 1)] }],
  ["history at limit", { ...ok, conversationHistory: Array.from({ length: L.historyMessages }, () => ({ role: "user", content: s(10) })) }],
  ["history past count", { ...ok, conversationHistory: Array.from({ length: L.historyMessages + 1 }, () => ({ role: "user", content: "x" })) }],
  ["history content past limit", { ...ok, conversationHistory: [{ role: "user", content: s(L.historyMessageChars + 1) }] }],
  ["history bad role", { ...ok, conversationHistory: [{ role: "system", content: "x" }] }],
  ["history extra field", { ...ok, conversationHistory: [{ role: "user", content: "x", at: 1 }] }],
  ["context string past limit", { ...ok, context: { location: s(L.contextStringChars + 1) } }],
  ["context custom past limit", { ...ok, context: { custom: s(L.contextCustomChars + 1) } }],
  ["context array past count", { ...ok, context: { recentEvents: Array.from({ length: L.contextArrayItems + 1 }, () => "e") } }],
  ["context array item past limit", { ...ok, context: { recentEvents: [s(L.contextArrayItemChars + 1)] } }],
  ["memory.retrieve not boolean", { ...ok, memory: { retrieve: "yes" } }],
  ["state", { ...ok, state: { "quest.flood.stage": 2, "pose.sitting": true, weather: "rain", "a.b_2": -1.5 } }],
  ["state empty", { ...ok, state: {} }],
  ["state at key limit", { ...ok, state: Object.fromEntries(Array.from({ length: L.stateKeys }, (_, i) => [`k${i}`, i])) }],
  ["state past key limit", { ...ok, state: Object.fromEntries(Array.from({ length: L.stateKeys + 1 }, (_, i) => [`k${i}`, i])) }],
  ["state string at limit", { ...ok, state: { x: s(200) } }],
  ["state string past limit", { ...ok, state: { x: s(201) } }],
  ["state key with capitals", { ...ok, state: { Weather: "rain" } }],
  ["state key with a reserved root", { ...ok, state: { "world.weather": "rain" } }],
  ["state key too long", { ...ok, state: { [`${s(32)}.${s(32)}.${s(32)}.${s(5)}`]: 1 } }],
  ["state key __proto__", { ...ok, state: JSON.parse('{"__proto__": 1}') }],
  ["state value object", { ...ok, state: { x: { y: 1 } } }],
  ["state value null", { ...ok, state: { x: null } }],
  ["state value list", { ...ok, state: { x: [1] } }],
  ["state not an object", { ...ok, state: [["x", 1]] }],
  ["array body", [ok]],
];

describe("the interact body's one model", () => {
  for (const [name, body] of BODIES) {
    test(`model and validator agree: ${name}`, () => {
      expect(Value.Check(InteractBody, body)).toBe(accepts(body));
    });
  }

  test("only the context's overall size is the validator's alone (JSON Schema cannot sum across fields)", () => {
    const body = { ...ok, context: { location: s(200), situation: s(200), atmosphere: s(200), weather: s(200), npcMood: s(200), npcActivity: s(200), timeOfDay: s(200), locationDetails: s(200), playerAppearance: s(200), playerReputation: s(200), custom: s(1) } };
    expect(Value.Check(InteractBody, body)).toBe(true);
    expect(() => validateInteract(body)).toThrow(`context too long (max ${L.contextTotalChars} characters overall)`);
  });

  test("the precedence is one ordered table", () => {
    expect(INTERACT_PRECEDENCE.map((r) => r.rule)).toEqual([
      "unknown fields", "text", "text length", "entityMindId", "entityMindId type", "playerId", "playerId type", "playerId length",
      "activeKnowledgeTags", "conversationHistory", "context", "memory", "state",
    ]);
  });
});

describe("Swagger shows the same model", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({}, { loadModel: false });
  });
  afterAll(() => t.close());

  test("/swagger/json: the interact request body is InteractBody, limits included", async () => {
    const r = await t.call("GET", "/swagger/json");
    expect(r.status).toBe(200);
    const schema = r.body.paths["/v1/npc/interact"].post.requestBody.content["application/json"].schema;
    expect(schema.properties.text.maxLength).toBe(L.textChars);
    expect(schema.properties.playerId.maxLength).toBe(L.playerIdChars);
    expect(schema.properties.conversationHistory.maxItems).toBe(L.historyMessages);
    expect(schema.additionalProperties).toBe(false);
  });
});
