import { Kind, OptionalKind, type TSchema } from "@sinclair/typebox";
import { isPlainObject } from "../lore/validate/fields.ts";
import { closestName } from "./closestName.ts";

/**
 * Checks a value against a TypeBox schema and says what is wrong in the
 * pack author's words ("minds[2].hints[0]: must be a non-empty string")
 * rather than JSON Schema's. Covers the subset the pack schema uses:
 * closed objects, records (an object of keys matching a pattern), arrays,
 * strings, numbers, booleans, literal unions, nullable unions and unions of
 * objects (the closest one reports). Reports every problem, one per path.
 */
export function checkShape(schema: TSchema, value: unknown, path: string, add: (path: string, reason: string) => void): void {
  const kind = schema[Kind] as string;
  switch (kind) {
    case "Object": {
      if (!isPlainObject(value)) return add(path, "must be an object (a mapping of fields)");
      const props = (schema.properties ?? {}) as Record<string, TSchema>;
      const required = new Set<string>(schema.required ?? []);
      for (const [name, sub] of Object.entries(props)) {
        const p = join(path, name);
        const v = value[name];
        if (v === undefined) {
          if (required.has(name) && sub[OptionalKind] !== "Optional") add(p, "required");
          continue;
        }
        checkShape(sub, v, p, add);
      }
      if (schema.additionalProperties === false) {
        for (const name of Object.keys(value)) {
          if (name in props) continue;
          const guess = closestName(name, Object.keys(props));
          add(join(path, name), guess ? `unknown field (did you mean '${guess}'?)` : `unknown field (known: ${Object.keys(props).join(", ")})`);
        }
      }
      return;
    }
    case "Record": {
      if (!isPlainObject(value)) return add(path, "must be an object (a mapping of keys)");
      const [pattern, sub] = Object.entries(schema.patternProperties as Record<string, TSchema>)[0];
      const keyRe = new RegExp(pattern);
      const entries = Object.entries(value);
      if (schema.maxProperties !== undefined && entries.length > schema.maxProperties) add(path, `at most ${schema.maxProperties} entries`);
      for (const [k, v] of entries) {
        if (!keyRe.test(k)) add(join(path, k), schema.keyProblem ?? "is not an allowed key");
        else checkShape(sub, v, join(path, k), add);
      }
      return;
    }
    case "Array": {
      if (!Array.isArray(value)) return add(path, "must be a list");
      if (schema.maxItems !== undefined && value.length > schema.maxItems) add(path, `at most ${schema.maxItems} items`);
      if (schema.minItems !== undefined && value.length < schema.minItems) add(path, `at least ${schema.minItems} item${schema.minItems === 1 ? "" : "s"}`);
      value.forEach((item, i) => checkShape(schema.items as TSchema, item, `${path}[${i}]`, add));
      return;
    }
    case "String": {
      if (typeof value !== "string") return add(path, schema.problem ?? "must be a string");
      if (schema.maxLength !== undefined && value.length > schema.maxLength) return add(path, `at most ${schema.maxLength} characters`);
      if ((schema.minLength !== undefined && value.length < schema.minLength) || (schema.pattern && !new RegExp(schema.pattern).test(value))) {
        add(path, schema.problem ?? "has the wrong format");
      }
      return;
    }
    case "Integer":
    case "Number": {
      const isInt = kind === "Integer";
      const what = isInt ? "an integer" : "a number";
      const [lo, hi, above] = [schema.minimum, schema.maximum, schema.exclusiveMinimum];
      const range =
        above !== undefined ? ` above ${above}${hi !== undefined ? ` and at most ${hi}` : ""}`
        : lo !== undefined && hi !== undefined ? ` from ${lo} to ${hi}` : lo !== undefined ? ` of at least ${lo}` : hi !== undefined ? ` of at most ${hi}` : "";
      const ok =
        typeof value === "number" && Number.isFinite(value) && (!isInt || Number.isInteger(value)) &&
        (schema.minimum === undefined || value >= schema.minimum) && (schema.maximum === undefined || value <= schema.maximum) &&
        (above === undefined || value > above);
      if (!ok) add(path, `must be ${what}${range}`);
      return;
    }
    case "Boolean":
      if (typeof value !== "boolean") add(path, "must be true or false");
      return;
    case "Null":
      if (value !== null) add(path, "must be null");
      return;
    case "Literal":
      if (value !== schema.const) add(path, `must be ${JSON.stringify(schema.const)}`);
      return;
    case "Union": {
      const branches = (schema.anyOf as TSchema[]).filter((b) => b[Kind] !== "Null");
      if (value === null && branches.length < (schema.anyOf as TSchema[]).length) return;
      if (branches.every((b) => b[Kind] === "Literal")) {
        const allowed = branches.map((b) => b.const as string);
        if (!allowed.includes(value as string)) add(path, `must be one of ${allowed.join(", ")}`);
        return;
      }
      // Nullable X: report X's problems.
      if (branches.length === 1) return checkShape(branches[0], value, path, add);
      // A line or {text, when}: the value's own kind picks the branch whose problems say what is wrong.
      const ofKind = branches.filter((b) => sameKind(b, value));
      if (ofKind.length === 1) return checkShape(ofKind[0], value, path, add);
      // No branch fits: the one branch closest to the value (fewest problems) says what is wrong with it.
      const problems = branches.map((b) => {
        const found: [string, string][] = [];
        checkShape(b, value, path, (p, r) => found.push([p, r]));
        return found;
      });
      if (problems.some((p) => p.length === 0)) return;
      const fewest = Math.min(...problems.map((p) => p.length));
      const closest = problems.filter((p) => p.length === fewest);
      if (closest.length === 1 && isPlainObject(value)) for (const [p, r] of closest[0]) add(p, r);
      else add(path, schema.problem ?? "has the wrong type");
      return;
    }
    case "Unknown":
    case "Any":
      return;
    default:
      throw new Error(`checkShape: unsupported schema kind ${kind}`);
  }
}

function sameKind(schema: TSchema, value: unknown): boolean {
  switch (schema[Kind] as string) {
    case "String":
      return typeof value === "string";
    case "Object":
      return isPlainObject(value);
    case "Array":
      return Array.isArray(value);
    default:
      return false;
  }
}

function join(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}
