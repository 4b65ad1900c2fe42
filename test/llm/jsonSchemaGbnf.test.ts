import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { getLlama, type Llama } from "node-llama-cpp";
import { gbnfOfJsonSchema } from "../../src/llm/internals.ts";
import { jsonSchemaGbnf, jsonSchemaGrammar } from "../../src/llm/jsonSchemaGrammar.ts";
import { resolveBehaviour } from "../../src/behaviour/resolveBehaviour.ts";
import { tailSchema } from "../../src/behaviour/tailSchema.ts";

// The tail's GBNF as text, made without a loaded Llama (a remote pool sends it to llama-server): it must be the
// text node-llama-cpp's own JSON-schema grammar holds, and parse in llama.cpp's grammar engine.
setDefaultTimeout(120_000);
const version = JSON.parse(readFileSync(require.resolve("node-llama-cpp/package.json"), "utf8")).version as string;

let llama: Llama;
beforeAll(async () => {
  llama = await getLlama({ gpu: false, build: "never" });
});

const b = resolveBehaviour({
  emotions: ["neutral", "happy", "angry"],
  maxActionsPerTurn: 2,
  actions: [
    { name: "give_gold", description: "Pay.", params: { type: "object", properties: { amount: { type: "integer", minimum: 1, maximum: 1000 } } } },
    { name: "open_door", description: "Open.", params: { type: "object", properties: { door: { type: "string", enum: ["front", "back"] }, loud: { type: "boolean" } } } },
    { name: "say", description: "Say.", params: { type: "object", properties: { line: { type: "string", maxLength: 20 } } } },
    { name: "wave", description: "Wave." },
  ],
  trust: { min: -3, max: 3, maxStep: 2 },
})!;
const tail = tailSchema(b, b.actions, { mind: [], location: [], item: [] });
const schemas: [string, object][] = [
  ["a typed turn's tail", tail],
  ["an object of a string and an enum", { type: "object", properties: { a: { type: "string" }, b: { enum: ["x", "y"] } } }],
  ["an array of integers", { type: "array", items: { type: "integer" } }],
];

describe("the GBNF text of a JSON schema, without a Llama", () => {
  for (const [what, schema] of schemas) {
    test(`canary: ${what}: the same text as node-llama-cpp's own grammar`, async () => {
      const own = (await llama.createGrammarForJsonSchema(schema as never)).grammar;
      const mine = gbnfOfJsonSchema(schema);
      if (mine !== own)
        throw new Error(
          `node-llama-cpp ${version}: LlamaJsonSchemaGrammar's constructor no longer writes the grammar text the stand-in reads ` +
            `(src/llm/internals.ts gbnfOfJsonSchema): remote tails would not get the local grammar. Update it for the new version or pin the old one.`,
        );
      expect(mine).toBe(own);
    });
  }

  test("the compact tail grammar a remote pool sends is the local engine's, and llama.cpp parses it", async () => {
    const text = jsonSchemaGbnf(tail, { compact: true });
    const local = await jsonSchemaGrammar(llama, tail, { compact: true });
    expect(local.grammar).toBe(text);
    // compact: no optional whitespace rule is left, and the bounded integer has its range
    expect(text).not.toContain("[ ]?");
    expect(text).not.toMatch(/\\n/);
    expect(text).toContain(`"1000"`);
  });
});
