import { setDefaultTimeout, afterAll, beforeAll, describe, expect, test } from "bun:test";
import { LlmEngine } from "../../src/llm/LlmEngine.ts";
import type { ChatMessage, GenerateResult } from "../../src/llm/types.ts";
import { resolveBehaviour } from "../../src/behaviour/resolveBehaviour.ts";
import { conditionsUnavailable, offerActions } from "../../src/behaviour/offerActions.ts";
import { tailLengthBound, tailSchema } from "../../src/behaviour/tailSchema.ts";
import { parseTail } from "../../src/behaviour/parseTail.ts";
import { BEHAVIOUR_DELIMITER } from "../../src/behaviour/behaviourPrompt.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { REFS, SHOPKEEPER } from "../behaviour/fixtures.ts";

// Real llama.cpp on the random-weight tiny model: its choices are arbitrary, so whatever holds of every tail
// here holds because of the grammar alone, not because a model behaved.
setDefaultTimeout(600_000);

let engine: LlmEngine;
// The shopkeeper with a shorter line and two actions a turn (its tails stay short on a random model).
const b = resolveBehaviour({
  ...SHOPKEEPER,
  maxActionsPerTurn: 2,
  actions: SHOPKEEPER.actions!.map((a) => (a.name === "say_to" ? { ...a, params: { type: "object" as const, properties: { ...a.params!.properties, line: { type: "string" as const, maxLength: 24 } } } } : a)),
})!;
const offered = offerActions(b, { turn: 1, lastUsed: {}, when: conditionsUnavailable, refs: REFS }).offered;
const schema = tailSchema(b, offered, REFS);
// The schema's own worst case as the budget (the server caps it, TAIL_TOKEN_CAP): every tail can complete,
// so a tail that did not would be the grammar's failure.
const tail = { delimiter: BEHAVIOUR_DELIMITER, jsonSchema: schema, maxTokens: tailLengthBound(schema) };
const messages = (line = "hello traveler, what do you sell?"): ChatMessage[] => [
  { role: "system", content: "You are Bram, the shopkeeper of the north gate market. ".repeat(6) },
  { role: "user", content: line },
];

beforeAll(async () => {
  engine = await LlmEngine.load({ modelPath: ensureTinyModel(), threads: 1, parallel: 4, contextSize: 2048 });
});
afterAll(async () => {
  await engine?.dispose();
});

describe("the behaviour tail on the local engine", () => {
  test("100 % of 120 tails with random seeds parse and validate (Ajv) under their schema", async () => {
    const results: GenerateResult[] = [];
    // Four at a time: concurrent generations share decodes through the DecodeBatcher, tails included.
    for (let round = 0; round < 30; round++) {
      const batch = await Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          engine.generate({ conversationKey: `tail:${round}:${i}`, messages: messages(), maxTokens: 6, temperature: 1, seed: Math.floor(Math.random() * 2 ** 31), tail }),
        ),
      );
      results.push(...batch);
    }
    const failures = results.filter((r) => !r.tail || !parseTail(r.tail.text, schema, b, offered, 1).valid).map((r) => r.tail?.text);
    expect(failures).toEqual([]);
    for (const r of results) {
      expect(() => JSON.parse(r.tail!.text)).not.toThrow();
      expect(r.tail!.finishReason).toBe("stop");
      expect(r.tail!.tokens).toBeGreaterThan(0);
      expect(r.tail!.tokens).toBeLessThanOrEqual(tail.maxTokens + engine.countTokens(BEHAVIOUR_DELIMITER));
      expect(r.text).not.toContain("[Behaviour]");
      // Compact: the grammar leaves no whitespace outside the strings (a space or newline is a token the game never reads)
      expect(r.tail!.text.replace(/"(?:[^"\\]|\\.)*"/g, '""')).not.toMatch(/\s/);
      // Only the delimiter (and words that re-tokenize differently) was evaluated for the tail, never the prompt
      // (~200 tokens here). Slack of 16: a random model's words often re-tokenize differently from how they were
      // sampled (byte pieces, whitespace trimmed from the reply, a piece merging across the joins), and the text
      // counted alone may tokenize a piece apart from the same text after the template's markup.
      expect(r.tail!.evaluatedTokens).toBeGreaterThan(0);
      expect(r.tail!.evaluatedTokens).toBeLessThanOrEqual(engine.countTokens(r.text + BEHAVIOUR_DELIMITER) + 16);
      expect(r.tail!.evaluatedTokens).toBeLessThan(r.promptTokens / 2);
    }
    // The random model takes actions too: the grammar's variants are reached, not only "none".
    expect(results.some((r) => JSON.parse(r.tail!.text).actions.some((a: { name: string }) => a.name !== "none"))).toBe(true);
    expect(results.every((r) => JSON.parse(r.tail!.text).actions.length >= 1)).toBe(true);
    expect(engine.stats()).toMatchObject({ activeSequences: 0, queueDepth: 0 });
  });

  test("what the grammar forces goes in batches: fewer decode steps than tokens, where stepwise takes one a token", async () => {
    // One tail at a time: `decodes` counts the context's decode calls, the tail's own only when it runs alone.
    for (let i = 0; i < 12; i++) {
      const seed = 7000 + i;
      const run = (stepwise: boolean) =>
        engine.generate({ conversationKey: `forced:${stepwise}:${i}`, messages: messages(), maxTokens: 4, temperature: 1, seed, tail: { ...tail, ...(stepwise ? { stepwise } : {}) } });
      const batched = (await run(false)).tail!;
      const stepwise = (await run(true)).tail!;
      for (const t of [batched, stepwise]) {
        expect(parseTail(t.text, schema, b, offered, 1).valid).toBe(true);
        expect(t.text.replace(/"(?:[^"\\]|\\.)*"/g, '""')).not.toMatch(/\s/);
      }
      const json = (t: typeof batched) => t.tokens - engine.countTokens(BEHAVIOUR_DELIMITER);
      // Every tail opens with `{"actions":[{"name":"`, forced whatever the model: at least those are batched.
      expect(batched.forcedTokens).toBeGreaterThanOrEqual(3);
      // A decode step for priming, one a sampled token; the forced ride along. Stepwise: one a token (and the end).
      expect(batched.decodes).toBeLessThanOrEqual(json(batched) - batched.forcedTokens! + 2);
      expect(stepwise.decodes).toBeGreaterThanOrEqual(json(stepwise));
      expect(batched.modelTokens).toBeLessThanOrEqual(json(batched) + batched.evaluatedTokens);
    }
  });

  test("the words are the same with or without a tail (greedy), and only they stream", async () => {
    for (const line of ["hello traveler", "what is the road north like?", "sell me a sword"]) {
      const plain = await engine.generate({ conversationKey: `plain:${line}`, messages: messages(line), maxTokens: 12, temperature: 0 });
      const streamed: string[] = [];
      let firstTokenAt = 0;
      const t0 = performance.now();
      const typed = await engine.generate({
        conversationKey: `typed:${line}`,
        messages: messages(line),
        maxTokens: 12,
        temperature: 0,
        tail,
        onToken: (piece) => {
          firstTokenAt ||= performance.now();
          streamed.push(piece);
        },
      });
      const end = performance.now();
      expect(typed.text).toBe(plain.text);
      expect(typed.completionTokens).toBe(plain.completionTokens); // the words' count; the tail has its own
      expect(streamed.join("").trim()).toBe(typed.text);
      expect(streamed.join("")).not.toContain("{");
      // The first word went out before the tail began.
      if (typed.text) expect(firstTokenAt).toBeLessThanOrEqual(end - typed.tail!.ms);
      expect(typed.timeToFirstTokenMs).toBeLessThan(end - t0 - typed.tail!.ms + 1);
      expect(plain.tail).toBeUndefined();
    }
  });

  test("the tail continues the same sequence: the next turn, rendered with it, evaluates only its new line", async () => {
    const key = "tail:follow-up";
    const opening = messages("good evening, shopkeeper of the gate");
    const first = await engine.generate({ conversationKey: key, messages: opening, maxTokens: 8, temperature: 0.7, tail });
    const next: ChatMessage[] = [...opening, { role: "assistant", content: `${first.text}${BEHAVIOUR_DELIMITER}${first.tail!.text}` }, { role: "user", content: "and the price?" }];
    const second = await engine.generate({ conversationKey: key, messages: next, maxTokens: 8, temperature: 0.7, tail });
    // The opening (system and first line) comes from the cache; what is evaluated is at most the reply with
    // its tail and the new line (a random model's tokens often re-tokenize differently, a real model's rarely).
    expect(second.evaluatedPromptTokens).toBeLessThanOrEqual(second.promptTokens - first.promptTokens + 8);
  });

  test("an aborted generation has no tail", async () => {
    const abort = new AbortController();
    const r = await engine.generate({
      conversationKey: "tail:abort",
      messages: messages(),
      maxTokens: 64,
      minTokens: 64,
      signal: abort.signal,
      tail,
      onToken: () => abort.abort(),
    });
    expect(r.finishReason).toBe("abort");
    expect(r.tail).toBeUndefined();
  });
});
