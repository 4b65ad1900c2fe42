import { conditionProblems, type Declarations } from "../../conditions/checkCondition.ts";
import { CONDITION_LIMITS } from "../../conditions/parseCondition.ts";
import { isPlainObject, LIMITS, type Problems } from "../validate/fields.ts";
import type { MindLine } from "./personaFields.ts";

/**
 * A mind's hints or restrictions as authored: each a non-empty line, or `{text, when}` whose condition is
 * checked against the project's declared state keys (the same checks as every condition, with the path
 * of each problem: `restrictions[2].when: …`).
 */
export function checkMindLines(p: Problems, path: string, v: unknown, declared: Declarations): MindLine[] | undefined {
  if (v === undefined) return undefined;
  if (v === null) return [];
  if (!Array.isArray(v)) {
    p.add(path, "must be a list of lines or {text, when}");
    return undefined;
  }
  if (v.length > LIMITS.listItems) p.add(path, `at most ${LIMITS.listItems} items`);
  const out: MindLine[] = [];
  v.forEach((item, i) => {
    const at = `${path}[${i}]`;
    if (typeof item === "string") {
      if (item.trim() === "") p.add(at, "must be a non-empty string");
      else if (item.length > LIMITS.listItemLength) p.add(at, `at most ${LIMITS.listItemLength} characters`);
      else out.push(item.trim());
      return;
    }
    if (!isPlainObject(item)) return p.add(at, "must be a line or an object {text, when}");
    p.unknownKeys(at, item, ["text", "when"]);
    const before = p.list.length;
    const text = item.text;
    if (typeof text !== "string" || text.trim() === "") p.add(`${at}.text`, "must be a non-empty string");
    else if (text.length > LIMITS.listItemLength) p.add(`${at}.text`, `at most ${LIMITS.listItemLength} characters`);
    const when = item.when;
    if (typeof when !== "string" || when.trim() === "") p.add(`${at}.when`, "required: the condition under which the line applies (a plain line needs no object)");
    else if (when.length > CONDITION_LIMITS.chars) p.add(`${at}.when`, `at most ${CONDITION_LIMITS.chars} characters`);
    else p.list.push(...conditionProblems(`${at}.when`, when, declared));
    const ok = p.list.length === before;
    if (ok) out.push({ text: (text as string).trim(), when: (when as string).trim() });
  });
  return out;
}
