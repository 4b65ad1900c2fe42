import { Type, type Static } from "@sinclair/typebox";
import { ApiError } from "../core/errors.ts";
import { isPlainObject } from "../lore/validate/fields.ts";
import { checkShape } from "../packs/checkShape.ts";
import { LORE_TEST_LIMITS } from "./testSchema.ts";

/** The admin API's bodies: suite files as text (YAML or JSON, named like files so problems say where). */
const SuiteFile = Type.Object(
  {
    file: Type.String({ minLength: 1, maxLength: 300, pattern: "\\S", problem: "must be a file name such as thornhaven.test.yaml" }),
    text: Type.String({ maxLength: 512 * 1024 }),
  },
  { additionalProperties: false },
);
const Files = Type.Array(SuiteFile, { minItems: 1, maxItems: 50 });

export const ValidateSuiteBody = Type.Object({ files: Files }, { additionalProperties: false });
export const StartRunBody = Type.Object(
  {
    files: Files,
    /** runs of every case, instead of each case's own */
    runs: Type.Optional(Type.Integer({ minimum: 1, maximum: LORE_TEST_LIMITS.runs })),
    label: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);

/** Checks a body against its model: 400 Invalid request with every problem, or the typed body. */
export function checkBody<T extends typeof ValidateSuiteBody | typeof StartRunBody>(model: T, body: unknown): Static<T> {
  const problems: string[] = [];
  if (!isPlainObject(body)) problems.push("body: must be a JSON object");
  else checkShape(model, body, "", (path, reason) => problems.push(`${path}: ${reason}`));
  if (problems.length) throw new ApiError(400, "Invalid request", { details: problems });
  return body as Static<T>;
}
