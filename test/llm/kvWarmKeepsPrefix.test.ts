import { describe, expect, setDefaultTimeout, test } from "bun:test";
import type { LlmEngine } from "../../src/llm/LlmEngine.ts";
import type { GenerateRequest } from "../../src/llm/types.ts";
import { warmEngines } from "../support/warmEngines.ts";

// A server busy warming other minds' prompts (as at start) while new players keep coming to one mind: the
// mind's prompt a turn leaves in a sequence is what the next newcomer of that mind needs, and a warm-up of
// another mind must not throw it away first. With one sequence that was every new player's first turn
// evaluating its whole prompt. Real llama.cpp on the suite's tiny model; the assertions are token counts
// and the order of events (what the warm-ups had done when a turn came), never durations.
setDefaultTimeout(120_000);

const load = warmEngines("kv-keep");

/** A long static prompt (many warm-up steps of 64 tokens). */
const mind = (who: string, lore: string) => `You are ${who}, who knows every barge and every debt on the river road. ${lore.repeat(30)}`;
const OTHER = mind("Ida", "The mill by the marsh grinds barley for the abbey. ");
const HESK = mind("Captain Hesk", "The watch pays a silver crown for news of the lost salt caravan. ");
const LINE = "How much does the watch pay for news of the caravan?";

const turn = (system: string, player: string, maxTokens = 4): GenerateRequest => ({
  conversationKey: `p:${player}`,
  messages: [
    { role: "system", content: system },
    { role: "user", content: LINE },
  ],
  maxTokens,
  minTokens: maxTokens,
  temperature: 0,
});

/** Resolves on the first event-loop turn at which the warm-ups have evaluated more than `than` tokens. */
async function warmedBeyond(engine: LlmEngine, than: number): Promise<void> {
  while (engine.kvStats()!.prefixWarmedTokens <= than) await new Promise((r) => setImmediate(r));
}

/** What a newcomer's first turn must reuse: the mind's whole static prompt (the template's markup aside). */
function expectWarm(engine: LlmEngine, r: Awaited<ReturnType<LlmEngine["generate"]>>): void {
  const staticTokens = engine.countChatTokens([{ role: "system", content: HESK }]);
  expect(r.timings?.warmSource).toBe("prefix");
  expect(r.promptTokens - r.evaluatedPromptTokens).toBeGreaterThanOrEqual(staticTokens - 16);
  expect(r.evaluatedPromptTokens).toBeLessThan(engine.countTokens(LINE) + 32);
}

describe("new players of one mind while other minds are warming", () => {
  test("one sequence: the second newcomer starts from the mind's prompt the first one's turn evaluated", async () => {
    const engine = await load(1);
    expect(engine.countChatTokens([{ role: "system", content: OTHER }])).toBeGreaterThan(10 * 64);
    // Start-up: another mind's prompt is being warmed on the only sequence when the first player comes.
    engine.warmMind(OTHER);
    await warmedBeyond(engine, 0);
    const first = await engine.generate(turn(HESK, "hesk:1"));
    expect(first.completionTokens).toBeGreaterThan(0);
    // The warm-ups take the sequence back once the turn is done; the next player comes while they run.
    await warmedBeyond(engine, engine.kvStats()!.prefixWarmedTokens);
    const second = await engine.generate(turn(HESK, "hesk:2"));
    expectWarm(engine, second);
    await engine.kvIdle(); // the other mind's warm-up still finishes
    expect(engine.kvStats()!.prefixSaves).toBe(2);
  });

  test("two sequences, both taken by turns: the warm-up does not evict the one holding the mind's prompt first", async () => {
    const engine = await load(2);
    engine.warmMind(OTHER);
    await warmedBeyond(engine, 0);
    // Two players at once: the mind's newcomer ends first (its sequence is then the least recently used one).
    const [first, busy] = await Promise.all([engine.generate(turn(HESK, "hesk:1", 2)), engine.generate(turn("You are Ada, a ferryman.", "ada:1", 40))]);
    expect(first.completionTokens).toBeGreaterThan(0);
    expect(busy.completionTokens).toBeGreaterThan(0);
    await warmedBeyond(engine, engine.kvStats()!.prefixWarmedTokens);
    const second = await engine.generate(turn(HESK, "hesk:2"));
    expectWarm(engine, second);
    await engine.kvIdle(); // and every prompt asked for is warmed in the end: the other mind's, Hesk's, Ada's
    expect(engine.kvStats()!.prefixSaves).toBe(3);
  });
});
