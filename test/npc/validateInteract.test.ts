import { describe, expect, test } from "bun:test";
import { validateInteract } from "../../src/npc/validateInteract.ts";
import { ApiError } from "../../src/core/errors.ts";

const ok = { text: "Hello there", entityMindId: "mind_1", playerId: "player-1" };
const s = (n: number, c = "a") => c.repeat(n);
const arr = (n: number, len = 5) => Array.from({ length: n }, (_, i) => `${i}`.padEnd(len, "x"));

/** [name, body, expected error message] — precedence is part of the contract. */
const CASES: Array<[string, unknown, string]> = [
  ["array body", [ok], "Invalid request"],
  ["null body", null, "Invalid request"],
  ["string body", "hi", "Invalid request"],
  ["unknown top-level field", { ...ok, mood: "x" }, "Unknown field(s)"],
  ["unknown field wins over missing text", { mood: "x" }, "Unknown field(s)"],
  ["unknown context field", { ...ok, context: { smell: "x" } }, "Unknown field(s)"],
  ["unknown memory field", { ...ok, memory: { retrieve: true, forget: true } }, "Unknown field(s)"],
  ["unknown field in a history message", { ...ok, conversationHistory: [{ role: "user", content: "x", at: 1 }] }, "Unknown field(s)"],
  ["text missing", { entityMindId: "m", playerId: "p" }, "Missing or empty text"],
  ["text empty", { ...ok, text: "" }, "Missing or empty text"],
  ["text whitespace", { ...ok, text: " \n\t " }, "Missing or empty text"],
  ["text not a string", { ...ok, text: 42 }, "Missing or empty text"],
  ["text null", { ...ok, text: null }, "Missing or empty text"],
  ["text over 2000", { ...ok, text: s(2001) }, "Text too long"],
  ["missing text wins over missing mind", { playerId: "p" }, "Missing or empty text"],
  ["entityMindId missing", { text: "hi", playerId: "p" }, "Missing entityMindId"],
  ["entityMindId empty", { ...ok, entityMindId: "" }, "Missing entityMindId"],
  ["entityMindId wins over playerId", { text: "hi" }, "Missing entityMindId"],
  ["entityMindId not a string", { ...ok, entityMindId: 7 }, "Invalid entityMindId: must be a string"],
  ["playerId missing", { text: "hi", entityMindId: "m" }, "Missing playerId"],
  ["playerId empty", { ...ok, playerId: "" }, "Missing playerId"],
  ["playerId not a string", { ...ok, playerId: 12 }, "Invalid playerId: must be a string"],
  ["playerId over 255", { ...ok, playerId: s(256) }, "playerId too long (max 255 characters)"],
  ["tags not an array", { ...ok, activeKnowledgeTags: "tavern" }, "Invalid activeKnowledgeTags: must be an array of strings"],
  ["tags with a number", { ...ok, activeKnowledgeTags: ["a", 1] }, "Invalid activeKnowledgeTags: must be an array of strings"],
  ["51 tags", { ...ok, activeKnowledgeTags: arr(51) }, "Too many activeKnowledgeTags (max 50)"],
  ["tag over 100 chars", { ...ok, activeKnowledgeTags: [s(101)] }, "activeKnowledgeTags entry too long (max 100 characters)"],
  ["history not an array", { ...ok, conversationHistory: {} }, "Invalid conversationHistory: must be an array of {role, content}"],
  ["51 history messages", { ...ok, conversationHistory: Array.from({ length: 51 }, () => ({ role: "user", content: "x" })) }, "conversationHistory too long (max 50 messages)"],
  ["history message over 10000", { ...ok, conversationHistory: [{ role: "user", content: s(10001) }] }, "conversationHistory[0].content too long (max 10000 characters)"],
  ["history bad role", { ...ok, conversationHistory: [{ role: "user", content: "a" }, { role: "system", content: "b" }] }, "Invalid conversationHistory[1].role: must be 'user' or 'assistant'"],
  ["history content not a string", { ...ok, conversationHistory: [{ role: "user" }] }, "Invalid conversationHistory[0].content: must be a string"],
  ["history item not an object", { ...ok, conversationHistory: ["hi"] }, "Invalid conversationHistory[0]: must be an object {role, content}"],
  ["context not an object", { ...ok, context: "tavern" }, "Invalid context: must be an object"],
  ["context string over 200", { ...ok, context: { weather: s(201) } }, "context.weather too long (max 200 characters)"],
  ["context custom over 500", { ...ok, context: { custom: s(501) } }, "context.custom too long (max 500 characters)"],
  ["context string not a string", { ...ok, context: { timeOfDay: 12 } }, "Invalid context.timeOfDay: must be a string"],
  ["context array over 10 items", { ...ok, context: { nearbyCharacters: arr(11) } }, "context.nearbyCharacters has too many items (max 10)"],
  ["context array item over 100", { ...ok, context: { recentEvents: [s(101)] } }, "context.recentEvents item too long (max 100 characters)"],
  ["context array not an array", { ...ok, context: { nearbyObjects: "table" } }, "Invalid context.nearbyObjects: must be an array of strings"],
  ["state not an object", { ...ok, state: ["x"] }, "Invalid state: must be an object of state keys and values"],
  ["51 state keys", { ...ok, state: Object.fromEntries(arr(51).map((k, i) => [`k${k}`, i])) }, "Too many state keys (max 50)"],
  ["state key with capitals", { ...ok, state: { Weather: "rain" } }, "Invalid state key 'Weather': must be dot-separated names of lower-case letters, digits and _ (each starting with a letter, at most 32 characters), e.g. quest.flood.stage"],
  ["state key with a scope", { ...ok, state: { "player.x": 1 } }, "Invalid state key 'player.x': 'player' is reserved: conditions read trust, turn, world.<key> and player.<key>"],
  ["state value an object", { ...ok, state: { x: {} } }, "Invalid state.x: must be true or false, a finite number or a string"],
  ["state string over 200", { ...ok, state: { x: s(201) } }, "Invalid state.x: at most 200 characters"],
  ["state comes after memory", { ...ok, memory: { retrieve: 1 }, state: [] }, "Invalid memory.retrieve: must be a boolean"],
  ["context over 2000 overall", { ...ok, context: { location: s(200), locationDetails: s(200), timeOfDay: s(200), weather: s(200), atmosphere: s(200), situation: s(200), npcMood: s(200), npcActivity: s(200), playerAppearance: s(200), custom: s(500) } }, "context too long (max 2000 characters overall)"],
  ["memory not an object", { ...ok, memory: true }, "Invalid memory: must be an object {retrieve?: boolean}"],
  ["memory.retrieve not a boolean", { ...ok, memory: { retrieve: "yes" } }, "Invalid memory.retrieve: must be a boolean"],
];

describe("POST /npc/interact validation", () => {
  for (const [name, body, message] of CASES) {
    test(`400 ${message} — ${name}`, () => {
      let err: unknown;
      try {
        validateInteract(body);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).status).toBe(400);
      expect((err as ApiError).error).toBe(message);
    });
  }
  test("unknown fields are named", () => {
    try {
      validateInteract({ ...ok, mood: 1, context: { smell: "x" } });
    } catch (e) {
      expect((e as ApiError).toBody()).toMatchObject({ error: "Unknown field(s)", fields: ["mood", "context.smell"] });
    }
  });
  test("limits are inclusive: exactly at every limit passes", () => {
    const r = validateInteract({
      ...ok,
      text: s(2000),
      playerId: s(255),
      activeKnowledgeTags: arr(50, 100),
      conversationHistory: Array.from({ length: 50 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: s(10000) })),
      context: { weather: s(200), custom: s(500), nearbyCharacters: arr(10, 100) },
      memory: { retrieve: true },
    });
    expect(r.memory.retrieve).toBe(true);
    expect(r.activeKnowledgeTags).toHaveLength(50);
  });
  test("memory.retrieve defaults to false", () => {
    expect(validateInteract(ok).memory).toEqual({ retrieve: false });
  });
});
