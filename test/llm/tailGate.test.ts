import { setDefaultTimeout, afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Token } from "node-llama-cpp";
import { LlmEngine } from "../../src/llm/LlmEngine.ts";
import { choiceProbabilities, gateChoice } from "../../src/llm/gateChoices.ts";
import type { ChatMessage, TailGate } from "../../src/llm/types.ts";
import { resolveBehaviour } from "../../src/behaviour/resolveBehaviour.ts";
import { conditionsUnavailable, offerActions } from "../../src/behaviour/offerActions.ts";
import { ACTION_BRANCH_PREFIX, NO_ACTION, tailGate, tailLengthBound, tailSchema } from "../../src/behaviour/tailSchema.ts";
import { parseTail } from "../../src/behaviour/parseTail.ts";
import { BEHAVIOUR_DELIMITER } from "../../src/behaviour/behaviourPrompt.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { REFS, SHOPKEEPER } from "../behaviour/fixtures.ts";

setDefaultTimeout(600_000);

const t = (...n: number[]) => n as Token[];

describe("choice probabilities at a branch", () => {
  test("logits are read only where choices part, normalised over the tokens they could take there", async () => {
    // choices: [1,2,3] "none", [1,2,4,5] "give_item", [1,2,4,6] "give_gold", [1,2,7] "open_door"
    const asked: { path: number[]; candidates: number[] }[] = [];
    const table: Record<string, Record<number, number>> = { "1,2": { 3: 0, 4: Math.log(2), 7: Math.log(1) }, "1,2,4": { 5: Math.log(3), 6: 0 } };
    const probs = await choiceProbabilities([t(1, 2, 3), t(1, 2, 4, 5), t(1, 2, 4, 6), t(1, 2, 7)], async (path, candidates) => {
      asked.push({ path: [...path], candidates: [...candidates] });
      return new Map(Object.entries(table[path.join(",")]).map(([k, v]) => [Number(k) as Token, v]));
    });
    // at [1,2]: none 1/4, give_* 2/4, open_door 1/4; at [1,2,4]: give_item 3/4, give_gold 1/4 of that
    expect(probs.map((p) => p.toFixed(4))).toEqual(["0.2500", "0.3750", "0.1250", "0.2500"]);
    expect(asked).toEqual([
      { path: [1, 2], candidates: [3, 4, 7] },
      { path: [1, 2, 4], candidates: [5, 6] },
    ]);
  });

  test("a choice the model gives no logit (impossible) gets none of the mass; one choice needs no reading", async () => {
    const probs = await choiceProbabilities([t(9, 1), t(9, 2)], async () => new Map([[1 as Token, 5]]));
    expect(probs).toEqual([1, 0]);
    let asked = 0;
    expect(await choiceProbabilities([t(4, 5, 6)], async () => (asked++, new Map()))).toEqual([1]);
    expect(asked).toBe(0);
  });

  test("the gate acts only when the act choices together reach its probability", () => {
    const gate: TailGate = { prefix: ACTION_BRANCH_PREFIX, stay: { choice: NO_ACTION, jsonSchema: {} }, act: { choices: ["a", "b"], jsonSchema: {} }, minProbability: 0.5 };
    expect(gateChoice(gate, [0.6, 0.25, 0.15])).toEqual({ actProbability: 0.4, took: "stay" });
    expect(gateChoice(gate, [0.5, 0.3, 0.2]).took).toBe("act");
    expect(gateChoice({ ...gate, minProbability: 0.9 }, [0.2, 0.5, 0.3]).took).toBe("stay");
    // unnormalised readings are normalised
    expect(gateChoice(gate, [2, 1, 1]).actProbability).toBe(0.5);
  });
});

describe("the behaviour tail's gate", () => {
  const b = resolveBehaviour({ ...SHOPKEEPER, actions: SHOPKEEPER.actions!.filter((a) => a.name !== "say_to") })!;
  const offered = offerActions(b, { turn: 1, lastUsed: {}, when: conditionsUnavailable, refs: REFS }).offered;
  const schema = tailSchema(b, offered, REFS);
  const none = '{"actions":[{"name":"none"}],"emotion":"neutral","intensity":5,"trust":0}';
  const act = '{"actions":[{"name":"give_gold","params":{"amount":3}}],"emotion":"neutral","intensity":5,"trust":0}';
  test("its two ways are narrowings of the tail: 'none' alone, or offered actions only", () => {
    const gate = tailGate(b, offered, REFS, 0.5)!;
    expect(gate.prefix).toBe(ACTION_BRANCH_PREFIX);
    expect(gate.act.choices).toEqual(offered.map((a) => a.name));
    expect(none.startsWith(gate.prefix) && act.startsWith(gate.prefix)).toBe(true);
    expect(parseTail(none, gate.stay.jsonSchema as Record<string, unknown>, b, offered, 1).valid).toBe(true);
    expect(parseTail(none, gate.act.jsonSchema as Record<string, unknown>, b, offered, 1).valid).toBe(false);
    expect(parseTail(act, gate.act.jsonSchema as Record<string, unknown>, b, offered, 1).valid).toBe(true);
    expect(parseTail(act, gate.stay.jsonSchema as Record<string, unknown>, b, offered, 1).valid).toBe(false);
    for (const text of [none, act]) expect(parseTail(text, schema, b, offered, 1).valid).toBe(true);
  });
  test("no gate when nothing is offered (the tail can only say none)", () => {
    expect(tailGate(b, [], REFS)).toBeUndefined();
  });
});

// Real llama.cpp on the random-weight tiny model: its probabilities are arbitrary, so what holds here holds
// because of the gate and the grammars, not because a model behaved.
describe("the gated tail on the local engine", () => {
  let engine: LlmEngine;
  const b = resolveBehaviour({ ...SHOPKEEPER, maxActionsPerTurn: 1, actions: SHOPKEEPER.actions!.filter((a) => a.name !== "say_to") })!;
  const offered = offerActions(b, { turn: 1, lastUsed: {}, when: conditionsUnavailable, refs: REFS }).offered;
  const schema = tailSchema(b, offered, REFS);
  const tailAt = (minProbability: number) => ({ delimiter: BEHAVIOUR_DELIMITER, jsonSchema: schema, maxTokens: tailLengthBound(schema), gate: tailGate(b, offered, REFS, minProbability) });
  const messages = (line = "hello traveler, what do you sell?"): ChatMessage[] => [
    { role: "system", content: "You are Bram, the shopkeeper of the north gate market. ".repeat(6) },
    { role: "user", content: line },
  ];
  beforeAll(async () => {
    engine = await LlmEngine.load({ modelPath: ensureTinyModel(), threads: 1, parallel: 2, contextSize: 2048 });
  });
  afterAll(async () => {
    await engine?.dispose();
  });

  test("every gated tail is valid, and takes the way its reading chose: acts at 0, never above 1", async () => {
    const readings: number[] = [];
    for (const [min, way] of [[0, "act"], [1.01, "stay"], [0.5, null]] as const) {
      for (let s = 0; s < 8; s++) {
        const r = await engine.generate({ conversationKey: `gate:${min}:${s}`, messages: messages(), maxTokens: 6, temperature: 1, seed: 100 + s, tail: tailAt(min) });
        const parsed = parseTail(r.tail!.text, schema, b, offered, 1);
        expect(parsed.valid).toBe(true);
        const gate = r.tail!.gate!;
        expect(gate.actProbability).toBeGreaterThanOrEqual(0);
        expect(gate.actProbability).toBeLessThanOrEqual(1);
        expect(gate.took).toBe(way ?? (gate.actProbability >= 0.5 ? "act" : "stay"));
        // the tail follows the way taken: "none" alone, or at least one offered action
        const names = (JSON.parse(r.tail!.text).actions as { name: string }[]).map((a) => a.name);
        if (gate.took === "stay") expect(names).toEqual([NO_ACTION]);
        else expect(names.length && names.every((n) => offered.some((a) => a.name === n))).toBe(true);
        readings.push(gate.actProbability);
      }
    }
    // The same words (same seed) give the same reading, whatever the threshold: the gate reads, it does not sample.
    // (Within 0.005: the sequence's other contents differ in where its cached tokens were decoded, and llama.cpp's
    // sums over differently sized batches differ in their last bits.)
    for (let s = 0; s < 8; s++) expect(Math.abs(readings[s] - readings[8 + s])).toBeLessThan(0.005);
  });

  test("batched, the tail continues from the prefix the gate read through instead of evaluating it again", async () => {
    for (let s = 0; s < 4; s++) {
      const run = (stepwise: boolean) =>
        engine.generate({ conversationKey: `gate:keep:${stepwise}:${s}`, messages: messages(), maxTokens: 6, temperature: 1, seed: 300 + s, tail: { ...tailAt(0.5), ...(stepwise ? { stepwise } : {}) } });
      const [kept, stepwise] = [(await run(false)).tail!, (await run(true)).tail!];
      expect(parseTail(kept.text, schema, b, offered, 1).valid).toBe(true);
      // The same words, so the same reading (to llama.cpp's last bits) and the same way.
      expect(Math.abs(kept.gate!.actProbability - stepwise.gate!.actProbability)).toBeLessThan(0.005);
      // Beyond the JSON's own tokens, batched evaluates less: `{"actions":[{"name":"` is read once, not twice.
      expect(kept.evaluatedTokens).toBeLessThan(stepwise.evaluatedTokens);
    }
  });

  test("reading the gate leaves the sequence as the words left it: the next turn evaluates only its new line", async () => {
    const key = "gate:follow-up";
    const opening = messages("good evening, shopkeeper of the gate");
    const tail = tailAt(0.5);
    const first = await engine.generate({ conversationKey: key, messages: opening, maxTokens: 8, temperature: 0, tail });
    const next: ChatMessage[] = [...opening, { role: "assistant", content: `${first.text}${BEHAVIOUR_DELIMITER}${first.tail!.text}` }, { role: "user", content: "and the price?" }];
    const second = await engine.generate({ conversationKey: key, messages: next, maxTokens: 8, temperature: 0, tail });
    expect(second.evaluatedPromptTokens).toBeLessThanOrEqual(second.promptTokens - first.promptTokens + 8);
    // and it answers as a fresh sequence given the same history does (greedy)
    const fresh = await engine.generate({ conversationKey: "gate:fresh", messages: next, maxTokens: 8, temperature: 0, tail });
    expect(second.text).toBe(fresh.text);
    expect(second.tail!.gate!.actProbability).toBeCloseTo(fresh.tail!.gate!.actProbability, 3);
  });
});
