import Ajv, { type ValidateFunction } from "ajv";
import type { ChatMessage, GenerateRequest, GenerateResult } from "./types.ts";

/** Repairs asked for after an invalid structured reply (bounded: the whole call costs at most 1 + this many generations). */
export const MAX_REPAIRS = 1;

// One validator per schema: the summary and refinement schemas are few and reused; behaviour tails vary with
// each turn's offered actions, so the cache is bounded (least recently used out).
const ajv = new Ajv({ allErrors: false, strict: false });
const validators = new Map<string, ValidateFunction>();
const MAX_VALIDATORS = 256;

export function validatorFor(schema: object): ValidateFunction {
  const key = JSON.stringify(schema);
  let v = validators.get(key);
  if (v) validators.delete(key);
  else {
    v = ajv.compile(schema);
    // Ajv keeps every compiled schema unless told to forget it.
    if (validators.size >= MAX_VALIDATORS) {
      const [oldKey, old] = validators.entries().next().value!;
      validators.delete(oldKey);
      ajv.removeSchema(old.schema as object);
    }
  }
  validators.set(key, v);
  return v;
}

/** null when `text` is JSON valid under `schema`, else why not (short, for the repair prompt and logs). */
export function schemaProblem(text: string, schema: object): string | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return "the reply is not valid JSON";
  }
  const validate = validatorFor(schema);
  if (validate(value)) return null;
  const e = validate.errors?.[0];
  return e ? `${e.instancePath || "the value"} ${e.message ?? "is invalid"}` : "the reply does not match the schema";
}

/**
 * Structured generation with validation: the backend constrains the output where it can (grammar /
 * response_format); whatever comes back is validated here, and an invalid reply that was not cut
 * short gets up to MAX_REPAIRS repair turns. Usage adds up over the attempts (all were generated).
 * The last text is returned even if still invalid: callers already salvage or discard junk.
 */
export async function generateStructured(
  run: (req: GenerateRequest) => Promise<GenerateResult>,
  req: GenerateRequest & { jsonSchema: object },
): Promise<GenerateResult & { repairs: number; valid: boolean }> {
  let messages = req.messages;
  let total: GenerateResult | null = null;
  for (let repairs = 0; ; repairs++) {
    const r = await run({ ...req, messages });
    total = total
      ? {
          ...r,
          promptTokens: total.promptTokens + r.promptTokens,
          evaluatedPromptTokens: total.evaluatedPromptTokens + r.evaluatedPromptTokens,
          completionTokens: total.completionTokens + r.completionTokens,
          timeToFirstTokenMs: total.timeToFirstTokenMs,
        }
      : r;
    const problem = schemaProblem(r.text, req.jsonSchema);
    if (problem === null) return { ...total, repairs, valid: true };
    if (r.finishReason !== "stop" || repairs >= MAX_REPAIRS) return { ...total, repairs, valid: false };
    messages = repairPrompt(req.messages, r.text, problem, req.jsonSchema);
  }
}

function repairPrompt(messages: ChatMessage[], reply: string, problem: string, schema: object): ChatMessage[] {
  return [
    ...messages,
    { role: "assistant", content: reply.slice(0, 4_000) },
    {
      role: "user",
      content: `That answer is unusable: ${problem}. Reply again with only JSON matching this schema, nothing else:\n${JSON.stringify(schema)}`,
    },
  ];
}
