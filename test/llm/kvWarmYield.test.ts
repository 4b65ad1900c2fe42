import { describe, expect, setDefaultTimeout, test } from "bun:test";
import type { LlmEngine } from "../../src/llm/LlmEngine.ts";
import type { ChatMessage, GenerateRequest } from "../../src/llm/types.ts";
import { warmEngines } from "../support/warmEngines.ts";

// A background warm-up of a mind's prompt never holds up a turn: it stands aside between its steps while
// any turn is in flight. Real llama.cpp on the suite's tiny model; every assertion is about the order of
// events (what the warm-up had done when the turn ended), never about durations.
setDefaultTimeout(120_000);

const load = warmEngines("kv-yield");

/** A long static prompt: the warm-up needs many steps of 64 tokens. */
const longMind = (who: string, lore = "The mill by the marsh grinds barley for the abbey. ") =>
  `You are ${who}, keeper of the mill by the marsh, who knows every barge and every debt on the river road. ${lore.repeat(40)}`;
const shortTurn = (key: string): GenerateRequest => ({
  conversationKey: key,
  messages: [
    { role: "system", content: "You are Ada, a ferryman." },
    { role: "user", content: "hello there" },
  ],
  maxTokens: 6,
  minTokens: 6,
  temperature: 0,
});

/** Resolves on the first event-loop turn at which the engine's warm-ups have evaluated something. */
async function warmUpUnderWay(engine: LlmEngine): Promise<void> {
  while (engine.kvStats()!.prefixWarmedTokens === 0) await new Promise((r) => setImmediate(r));
}

describe("a turn never waits for a background warm-up", () => {
  test("one sequence, held by a warm-up of a long prompt: the turn gets it at the warm-up's next step and ends before the warm-up does", async () => {
    const engine = await load(1);
    const long = longMind("Ida");
    const longTokens = engine.countChatTokens([{ role: "system", content: long }]);
    expect(longTokens).toBeGreaterThan(10 * 64);
    engine.warmMind(long);
    await warmUpUnderWay(engine);
    const r = await engine.generate(shortTurn("p:ada:1"));
    // Read as the turn's own promise settles: the warm-up had neither finished evaluating nor saved.
    const atTurnEnd = engine.kvStats()!;
    expect(r.completionTokens).toBeGreaterThan(0);
    expect(atTurnEnd.prefixSaves).toBe(0);
    expect(atTurnEnd.prefixWarmedTokens).toBeLessThan(longTokens);
    expect(atTurnEnd.prefixWarmYields).toBeGreaterThanOrEqual(1);
    // Once turns are done it resumes and saves; the next newcomer of that mind starts from it.
    await engine.kvIdle();
    expect(engine.kvStats()!.prefixSaves).toBeGreaterThanOrEqual(1);
    const messages: ChatMessage[] = [
      { role: "system", content: long },
      { role: "user", content: "who owes you money?" },
    ];
    const newcomer = await engine.generate({ conversationKey: "p:ida:new", messages, maxTokens: 2, temperature: 0 });
    expect(newcomer.timings?.warmSource).toBe("prefix");
    expect(newcomer.evaluatedPromptTokens).toBeLessThan(longTokens / 4);
  });

  test("two sequences: a turn on the free one is not queued behind the warm-up's evaluation", async () => {
    const engine = await load(2);
    const long = longMind("Bran");
    const longTokens = engine.countChatTokens([{ role: "system", content: long }]);
    engine.warmMind(long);
    await warmUpUnderWay(engine);
    const r = await engine.generate(shortTurn("p:ada:2"));
    const atTurnEnd = engine.kvStats()!;
    expect(r.completionTokens).toBeGreaterThan(0);
    expect(atTurnEnd.prefixSaves).toBe(0);
    expect(atTurnEnd.prefixWarmedTokens).toBeLessThan(longTokens);
    await engine.kvIdle();
    expect(engine.kvStats()!.prefixWarmedTokens).toBeGreaterThanOrEqual(longTokens - 64);
    expect(engine.kvStats()!.prefixSaves).toBeGreaterThanOrEqual(1);
  });

  test("a queued warm-up does not start while a turn is in flight", async () => {
    const engine = await load(2);
    const long = longMind("Cole");
    engine.warmMind(long);
    const r = engine.generate(shortTurn("p:ada:3")); // in flight before the warm-up's first look
    await r;
    expect(engine.kvStats()!.prefixWarmedTokens).toBe(0);
    await engine.kvIdle();
    expect(engine.kvStats()!.prefixSaves).toBeGreaterThanOrEqual(1);
  });
});

describe("a newcomer whose mind's new prompt is still warming", () => {
  test("starts from the nearest prefix snapshot (the mind's previous prompt: same system text, other lore) instead of cold", async () => {
    const engine = await load(1);
    const before = longMind("Dara", "The abbey buys barley at the spring fair. ");
    engine.warmMind(before);
    await engine.kvIdle();
    // Another conversation takes the only sequence: the old prefix is on disk only.
    await engine.generate(shortTurn("p:ada:4"));
    await engine.kvIdle();
    // The shared lore changed: same system text, other lore after it. Its own prefix is not warmed yet.
    const after = `${before.slice(0, before.indexOf("The abbey"))}${"The ferry stops at dusk since the flood. ".repeat(10)}`;
    const system = engine.countChatTokens([{ role: "system", content: before.slice(0, before.indexOf("The abbey")) }]);
    const r = await engine.generate({
      conversationKey: "p:dara:new",
      messages: [
        { role: "system", content: after },
        { role: "user", content: "is the ferry running?" },
      ],
      maxTokens: 2,
      temperature: 0,
    });
    expect(r.timings?.warmSource).toBe("prefix");
    expect(engine.kvStats()!.nearestPrefixRestores).toBe(1);
    // The system text came from the old prefix; only the new lore and the line were evaluated.
    expect(r.evaluatedPromptTokens).toBeLessThanOrEqual(r.promptTokens - system + 16);
    await engine.kvIdle(); // and its own prefix was warmed meanwhile, for the next newcomer
    expect(engine.kvStats()!.prefixSaves).toBeGreaterThanOrEqual(2);
  });
});
