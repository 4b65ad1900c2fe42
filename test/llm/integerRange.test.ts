import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { getLlama, type Llama } from "node-llama-cpp";
import { integerRangeGbnf } from "../../src/llm/integerRangeGbnf.ts";
import { LlmEngine } from "../../src/llm/LlmEngine.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";

// Bounded integers in a JSON-schema grammar: llama.cpp's own grammar engine decides which texts a range's GBNF
// accepts, and the random-weight tiny model samples under it (its digits are arbitrary: a bound that holds
// there holds because of the grammar alone).
setDefaultTimeout(300_000);

let llama: Llama;
let engine: LlmEngine;
beforeAll(async () => {
  llama = await getLlama({ gpu: false });
  engine = await LlmEngine.load({ modelPath: ensureTinyModel(), threads: 1, parallel: 2, contextSize: 1024 });
});
afterAll(async () => {
  await engine?.dispose();
});

describe("the GBNF of an integer range", () => {
  const ranges: [number, number][] = [[1, 500], [0, 0], [0, 9], [-5, 5], [-500, -3], [7, 7], [10, 99], [95, 1005], [-1000, 1234], [-1, 0], [1, 100000]];
  for (const [lo, hi] of ranges) {
    test(`${lo}..${hi}: exactly the integers within it, as JSON writes them`, async () => {
      // the "." after the number makes the test a whole match, not a prefix that could still grow into one
      const g = await llama.createGrammar({ grammar: `root ::= ${integerRangeGbnf(lo, hi)} "."` });
      const accepts = (text: string) => (g as unknown as { _testText(t: string): boolean })._testText(`${text}.`);
      const step = Math.max(1, Math.floor((hi - lo) / 2000));
      const wrong: string[] = [];
      for (let n = lo - 120; n <= hi + 120; n += n < lo + 120 || n > hi - 120 ? 1 : step) if (accepts(String(n)) !== (n >= lo && n <= hi)) wrong.push(String(n));
      for (const text of ["-0", "00", "01", "+1", "1e2", "1.0", ""]) if (accepts(text)) wrong.push(text);
      expect(wrong).toEqual([]);
    });
  }
  test("a reversed or unsafe range is refused", () => {
    expect(() => integerRangeGbnf(5, 4)).toThrow();
    expect(() => integerRangeGbnf(0, 2 ** 60)).toThrow();
  });
});

describe("a JSON schema's bounded integers on the local engine", () => {
  test("every sampled number is within its minimum and maximum (one bound, both, negative)", async () => {
    const schema = {
      type: "object",
      properties: {
        price: { type: "integer", minimum: 1, maximum: 500 },
        offset: { type: "integer", minimum: -40, maximum: 1000 },
        atLeast: { type: "integer", minimum: 3 },
        atMost: { type: "integer", maximum: -2 },
      },
      required: ["price", "offset", "atLeast", "atMost"],
      additionalProperties: false,
    };
    const out: Record<string, number>[] = [];
    for (let i = 0; i < 40; i++) {
      const r = await engine.generate({
        conversationKey: `int:${i}`,
        messages: [{ role: "user", content: "Give me numbers." }],
        maxTokens: 120,
        temperature: 1,
        seed: 1000 + i,
        jsonSchema: schema,
      });
      out.push(JSON.parse(r.text));
    }
    const outside = out.filter((v) => !(Number.isInteger(v.price) && v.price >= 1 && v.price <= 500 && Number.isInteger(v.offset) && v.offset >= -40 && v.offset <= 1000 && Number.isSafeInteger(v.atLeast) && v.atLeast >= 3 && Number.isSafeInteger(v.atMost) && v.atMost <= -2));
    expect(outside).toEqual([]);
    // the random model does reach the ranges' far ends' digit counts, not only one-digit numbers
    expect(out.some((v) => v.price >= 100 || v.offset >= 100)).toBe(true);
  });
});
