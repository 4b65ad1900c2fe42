import { describe, expect, setDefaultTimeout, test } from "bun:test";
import type { LlmEngine } from "../../src/llm/LlmEngine.ts";
import type { ChatMessage, GenerateRequest } from "../../src/llm/types.ts";
import { warmEngines } from "../support/warmEngines.ts";

// A server with one sequence that never idles long enough to warm a mind's whole prompt between two turns: each
// idle moment evaluates a step or two, then a turn of another mind takes the sequence. What the warm-up evaluated
// must not be lost with the sequence, or the mind's prompt is never saved and its first player pays all of it.
// Real llama.cpp on the suite's tiny model; the assertions are counts and the order of events (a turn comes as
// soon as the warm-up has evaluated one more step), never durations.
setDefaultTimeout(240_000);

const load = warmEngines("kv-progress");

const LONG = `You are Ida, keeper of the mill by the marsh, who knows every barge and every debt on the river road. ${"The mill by the marsh grinds barley for the abbey. ".repeat(40)}`;
const busyTurn = (i: number): GenerateRequest => ({
  conversationKey: `p:ada:${i}`,
  messages: [
    { role: "system", content: `You are Ada, a ferryman. ${"The ferry crosses at dawn and at dusk. ".repeat(6)}` },
    { role: "user", content: "hello there" },
  ],
  maxTokens: 2,
  minTokens: 2,
  temperature: 0,
});

/** Until the warm-ups have evaluated more than `than` tokens or saved a prefix (bounded: a stalled warm-up fails the test, not hangs it). */
async function warmedBeyond(engine: LlmEngine, than: number, saves: number): Promise<void> {
  const until = Date.now() + 30_000;
  while (engine.kvStats()!.prefixWarmedTokens <= than && engine.kvStats()!.prefixSaves <= saves && Date.now() < until) {
    await new Promise((r) => setImmediate(r));
  }
}

describe("a warm-up interrupted by every idle moment's end", () => {
  test("one sequence, a turn of another mind after each step: the prompt is still warmed to the end and saved", async () => {
    const engine = await load(1);
    const longTokens = engine.countChatTokens([{ role: "system", content: LONG }]);
    expect(longTokens).toBeGreaterThan(10 * 64);
    // Ada's prompt is warmed and saved first (her turns then restore it), so every later save is Ida's.
    await engine.generate(busyTurn(0));
    await engine.kvIdle();
    const saves0 = engine.kvStats()!.prefixSaves;
    engine.warmMind(LONG);
    let turns = 0;
    // Far more interruptions than steps: without kept progress each one starts the prompt again from its start.
    for (; turns < 40 && engine.kvStats()!.prefixSaves === saves0; turns++) {
      const before = engine.kvStats()!;
      await warmedBeyond(engine, before.prefixWarmedTokens, before.prefixSaves);
      await engine.generate(busyTurn(turns + 1));
    }
    const kv = engine.kvStats()!;
    expect(kv.prefixSaves).toBe(saves0 + 1);
    expect(kv.prefixWarmYields).toBeGreaterThanOrEqual(3);
    // Each idle moment went on from where the last one stopped: about the prompt once, not a step per start again.
    expect(kv.prefixWarmedTokens).toBeLessThan(longTokens + turns * 64 + 64);
    expect(turns).toBeLessThan(40);
    // Ida's first newcomer starts from her whole prompt.
    const messages: ChatMessage[] = [
      { role: "system", content: LONG },
      { role: "user", content: "who owes you money?" },
    ];
    const newcomer = await engine.generate({ conversationKey: "p:ida:new", messages, maxTokens: 2, temperature: 0 });
    expect(newcomer.timings?.warmSource).toBe("prefix");
    expect(newcomer.evaluatedPromptTokens).toBeLessThan(longTokens / 4);
  });

  test("a newcomer of the mind whose warm-up was interrupted starts from the part already warmed", async () => {
    const engine = await load(1);
    await engine.generate(busyTurn(100));
    await engine.kvIdle();
    const longTokens = engine.countChatTokens([{ role: "system", content: LONG }]);
    engine.warmMind(LONG);
    // Three steps of the warm-up, each ended by a turn of Ada's.
    for (let i = 0; i < 3; i++) {
      await warmedBeyond(engine, engine.kvStats()!.prefixWarmedTokens, engine.kvStats()!.prefixSaves);
      await engine.generate(busyTurn(101 + i));
    }
    const messages: ChatMessage[] = [
      { role: "system", content: LONG },
      { role: "user", content: "who owes you money?" },
    ];
    const newcomer = await engine.generate({ conversationKey: "p:ida:early", messages, maxTokens: 2, temperature: 0 });
    // Not cold: at least the three steps came from the kept part (the warm-up may have gone further meanwhile).
    expect(newcomer.timings?.warmSource).toBe("prefix");
    expect(newcomer.promptTokens - newcomer.evaluatedPromptTokens).toBeGreaterThanOrEqual(3 * 64 - 8);
    expect(longTokens).toBeGreaterThan(newcomer.promptTokens - newcomer.evaluatedPromptTokens);
    await engine.kvIdle();
  });
});
