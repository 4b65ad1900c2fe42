import type { Llama, LlamaGrammar } from "node-llama-cpp";
import { integerRangeGbnf } from "./integerRangeGbnf.ts";
import { gbnfOfJsonSchema } from "./internals.ts";

/** The widest an integer with only one bound may go the other way: 15 digits, within JavaScript's safe integers. */
const OPEN_BOUND = 999_999_999_999_999;

type Json = Record<string, unknown>;

/**
 * A grammar for a JSON schema, as node-llama-cpp makes it, except that an integer with a `minimum` or `maximum`
 * samples only numbers within them (jsonSchemaGbnf). A schema without one, not compact, is passed through.
 */
export async function jsonSchemaGrammar(llama: Llama, schema: object, o: { compact?: boolean } = {}): Promise<LlamaGrammar> {
  if (!o.compact && !hasBoundedInteger(schema)) return llama.createGrammarForJsonSchema(schema as never);
  return llama.createGrammar({ grammar: jsonSchemaGbnf(schema, o) });
}

/**
 * The GBNF text of jsonSchemaGrammar: the local engine parses it, and a llama-server takes it as its `grammar`
 * (src/generation/remote/remoteTail.ts), so a typed turn's tail is held to the same grammar on both. node-llama-cpp's
 * JSON-schema grammar knows no integer bounds (any integer of up to 16 digits, with an exponent), so each bounded
 * integer is made a placeholder const, and its rule in the generated GBNF is replaced with the range's own
 * (integerRangeGbnf).
 */
export function jsonSchemaGbnf(schema: object, o: { compact?: boolean } = {}): string {
  const ranges: [number, number][] = [];
  const marked = markBoundedIntegers(schema as Json, ranges);
  const generated = gbnfOfJsonSchema(marked as object);
  let gbnf = o.compact ? compactGbnf(generated) : generated;
  ranges.forEach(([lo, hi], i) => {
    const literal = `"\\"${placeholder(i)}\\""`;
    if (!gbnf.includes(literal)) throw new Error(`the grammar for an integer in ${lo}..${hi} could not be placed`);
    gbnf = gbnf.split(literal).join(integerRangeGbnf(lo, hi));
  });
  return gbnf;
}

function hasBoundedInteger(schema: object): boolean {
  const ranges: [number, number][] = [];
  markBoundedIntegers(schema, ranges);
  return ranges.length > 0;
}

/**
 * The grammar without JSON's optional whitespace: no space after a colon or comma, no newline and indentation
 * between elements, no newlines after the closing brace. Each of those is a token a model may spend (a typed
 * turn's tail is read by the server, never by a person), and with none allowed it spends none.
 */
export function compactGbnf(gbnf: string): string {
  return gbnf
    .replace(/^((comma-)?whitespace-[\w-]+-rule) ::= .*$/gm, (_, name: string, comma?: string) => `${name} ::= ${comma ? '","' : '""'}`)
    .split(" [ ]?")
    .join("")
    .replace(/^(root ::= .*) "\\n\\n\\n\\n" \[\\n\]\*$/m, "$1");
}

const placeholder = (i: number) => `__lorehold_integer_range_${i}__`;

/** A copy of the schema with each bounded integer replaced by its placeholder const (its range kept in `ranges`). */
function markBoundedIntegers(s: unknown, ranges: [number, number][]): unknown {
  if (Array.isArray(s)) return s.map((x) => markBoundedIntegers(x, ranges));
  if (!s || typeof s !== "object") return s;
  const o = s as Json;
  if (o.type === "integer" && !("enum" in o) && !("const" in o) && (typeof o.minimum === "number" || typeof o.maximum === "number")) {
    const lo = typeof o.minimum === "number" ? Math.ceil(o.minimum) : -OPEN_BOUND;
    const hi = typeof o.maximum === "number" ? Math.floor(o.maximum) : OPEN_BOUND;
    ranges.push([Math.max(lo, -OPEN_BOUND), Math.min(hi, OPEN_BOUND)]);
    return { const: placeholder(ranges.length - 1) };
  }
  // `enum` and `const` values are data, not schemas: copied as they are
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, k === "enum" || k === "const" ? v : markBoundedIntegers(v, ranges)]));
}
