import type { KeyDeclaration } from "../conditions/checkCondition.ts";
import { isPlainObject, type Problems } from "../lore/validate/fields.ts";
import { keyProblem, STATE_LIMITS, STATE_TYPES, typeOfValue, valueProblem, type StateType, type StateValue } from "./stateKeys.ts";

export type { KeyDeclaration };

/**
 * A project's optional declarations of its state: typed keys (a type, a default the world reads
 * while it has not set the key, allowed values) and exclusive groups (`pose`: setting `pose.sitting`
 * clears the other `pose.*` keys of that scope). Authored through the admin API and lore packs.
 */
export interface StateSchema {
  stateKeys: Record<string, KeyDeclaration>;
  exclusiveGroups: string[];
}

export const EMPTY_SCHEMA: StateSchema = { stateKeys: {}, exclusiveGroups: [] };

export function declarationsOf(schema: StateSchema): Map<string, KeyDeclaration> {
  return new Map(Object.entries(schema.stateKeys));
}

/** The declared defaults, as the world reads them. */
export function defaultsOf(schema: StateSchema): Map<string, StateValue> {
  const out = new Map<string, StateValue>();
  for (const [k, d] of Object.entries(schema.stateKeys)) if (d.default !== undefined) out.set(k, d.default);
  return out;
}

/**
 * Checks a schema (`{stateKeys?, exclusiveGroups?}`), adding every problem under `path`; returns it in
 * its stored form (keys sorted, so equal schemas compare equal), or null when it has problems.
 */
export function checkStateSchema(input: unknown, path: string, p: Problems): StateSchema | null {
  const before = p.list.length;
  const at = (sub: string) => (path ? `${path}.${sub}` : sub);
  if (!isPlainObject(input)) {
    p.add(path || "body", "must be an object {stateKeys, exclusiveGroups}");
    return null;
  }
  p.unknownKeys(path, input, ["stateKeys", "exclusiveGroups"]);
  const stateKeys: Record<string, KeyDeclaration> = {};
  if (input.stateKeys !== undefined && input.stateKeys !== null) {
    if (!isPlainObject(input.stateKeys)) p.add(at("stateKeys"), "must be an object of key → {type, default?, enum?}");
    else {
      const entries = Object.entries(input.stateKeys);
      if (entries.length > STATE_LIMITS.declaredKeys) p.add(at("stateKeys"), `at most ${STATE_LIMITS.declaredKeys} keys`);
      for (const [key, decl] of entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        const d = checkDeclaration(key, decl, at(`stateKeys.${key}`), p);
        if (d) stateKeys[key] = d;
      }
    }
  }
  const exclusiveGroups: string[] = [];
  if (input.exclusiveGroups !== undefined && input.exclusiveGroups !== null) {
    if (!Array.isArray(input.exclusiveGroups)) p.add(at("exclusiveGroups"), "must be a list of key prefixes, e.g. [pose]");
    else {
      if (input.exclusiveGroups.length > STATE_LIMITS.exclusiveGroups) p.add(at("exclusiveGroups"), `at most ${STATE_LIMITS.exclusiveGroups} groups`);
      input.exclusiveGroups.forEach((g, i) => {
        const problem = typeof g === "string" ? keyProblem(g) : "must be a key prefix such as pose";
        if (problem) p.add(at(`exclusiveGroups[${i}]`), problem);
        else if (exclusiveGroups.includes(g)) p.add(at(`exclusiveGroups[${i}]`), `duplicate group '${g}'`);
        else exclusiveGroups.push(g);
      });
      for (const g of exclusiveGroups) {
        const outer = exclusiveGroups.find((o) => o !== g && g.startsWith(`${o}.`));
        if (outer) p.add(at(`exclusiveGroups[${input.exclusiveGroups.indexOf(g)}]`), `'${g}' lies inside group '${outer}': groups do not nest`);
      }
      exclusiveGroups.sort();
    }
  }
  return p.list.length > before ? null : { stateKeys, exclusiveGroups };
}

function checkDeclaration(key: string, decl: unknown, path: string, p: Problems): KeyDeclaration | null {
  const kp = keyProblem(key);
  if (kp) {
    p.add(path, kp);
    return null;
  }
  if (!isPlainObject(decl)) {
    p.add(path, "must be an object {type, default?, enum?}");
    return null;
  }
  p.unknownKeys(path, decl, ["type", "default", "enum"]);
  if (!STATE_TYPES.includes(decl.type as StateType)) {
    p.add(`${path}.type`, `must be one of ${STATE_TYPES.join(", ")}`);
    return null;
  }
  const type = decl.type as StateType;
  const out: KeyDeclaration = { type };
  const fits = (v: unknown, where: string): v is StateValue => {
    const problem = valueProblem(v) ?? (typeOfValue(v) !== type ? `must be a ${type === "boolean" ? "true or false" : type}, as declared` : null);
    if (problem) p.add(where, problem);
    return problem === null;
  };
  if (decl.enum !== undefined && decl.enum !== null) {
    if (type === "boolean") p.add(`${path}.enum`, "enum lists the allowed numbers or texts of a number or string key");
    else if (!Array.isArray(decl.enum) || decl.enum.length === 0 || decl.enum.length > STATE_LIMITS.enumValues) {
      p.add(`${path}.enum`, `must be a list of 1 to ${STATE_LIMITS.enumValues} values`);
    } else {
      const values: StateValue[] = [];
      decl.enum.forEach((v, i) => {
        if (!fits(v, `${path}.enum[${i}]`)) return;
        if (values.includes(v)) p.add(`${path}.enum[${i}]`, `duplicate value ${JSON.stringify(v)}`);
        else values.push(v);
      });
      out.enum = values;
    }
  }
  if (decl.default !== undefined && decl.default !== null && fits(decl.default, `${path}.default`)) {
    if (out.enum && !out.enum.includes(decl.default)) p.add(`${path}.default`, `must be one of the enum's values`);
    out.default = decl.default;
  }
  return out;
}

/** Why a value may not be stored under a declared key (wrong type, not in its enum), or null. */
export function declaredValueProblem(decl: KeyDeclaration | undefined, v: StateValue): string | null {
  if (!decl) return null;
  if (typeOfValue(v) !== decl.type) return `declared as ${decl.type}`;
  if (decl.enum && !decl.enum.includes(v)) return `must be one of ${decl.enum.map((x) => JSON.stringify(x)).join(", ")}`;
  return null;
}
