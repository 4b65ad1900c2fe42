import { checkShape } from "../packs/checkShape.ts";
import { conditionProblems, type Declarations } from "../conditions/checkCondition.ts";
import { isPlainObject } from "../lore/validate/fields.ts";
import { BehaviourModel, type BehaviourInput } from "./behaviourModel.ts";
import { resolveTrust } from "./resolveBehaviour.ts";
import { NO_ACTION } from "./tailSchema.ts";

type Add = (path: string, reason: string) => void;

/**
 * Checks an authored behaviour: its shape against BehaviourModel (every problem with its path), then what a
 * schema cannot say — unique emotion, action and choice names, minimum ≤ maximum, a trust range that holds its
 * initial value and labels — and each action's `when` as a condition against the project's declared state
 * keys (`declared`; lore packs check theirs with the pack's own declarations, packs/resolveState.ts).
 * Returns the behaviour to store (as authored), null for "no behaviour", or undefined when there were problems.
 */
export function validateBehaviour(value: unknown, path: string, add: Add, declared?: Declarations): BehaviourInput | null | undefined {
  if (value === null) return null;
  let ok = true;
  const report: Add = (p, r) => {
    ok = false;
    add(p, r);
  };
  checkShape(BehaviourModel, value, path, report);
  if (!ok || !isPlainObject(value)) return undefined;
  checkBehaviourRules(value as BehaviourInput, path, report);
  if (declared) actionConditionProblems(value as BehaviourInput, path, declared).forEach((line) => report(...splitProblem(line)));
  return ok ? (value as BehaviourInput) : undefined;
}

/** Each action's `when` checked as a condition: "path: reason (at character N)" lines. */
export function actionConditionProblems(b: BehaviourInput, path: string, declared: Declarations): string[] {
  return (b.actions ?? []).flatMap((a, i) => (a.when ? conditionProblems(`${path}.actions[${i}].when`, a.when, declared) : []));
}

function splitProblem(line: string): [string, string] {
  const at = line.indexOf(": ");
  return [line.slice(0, at), line.slice(at + 2)];
}

/** The rules beyond the shape (which must already hold): unique names, consistent ranges. */
export function checkBehaviourRules(b: BehaviourInput, path: string, report: Add): void {
  duplicates(b.emotions ?? [], `${path}.emotions`, "emotion", report);
  duplicates((b.actions ?? []).map((a) => a.name), `${path}.actions`, "action name", report, ".name");
  (b.actions ?? []).forEach((a, i) => {
    if (a.name === NO_ACTION) report(`${path}.actions[${i}].name`, `'${NO_ACTION}' is reserved: the tail's way to say no action`);
    for (const [name, p] of Object.entries(a.params?.properties ?? {})) {
      const at = `${path}.actions[${i}].params.properties.${name}`;
      if (p.type === "integer" && p.minimum !== undefined && p.maximum !== undefined && p.minimum > p.maximum) report(`${at}.maximum`, "must be at least minimum");
      if ("enum" in p) duplicates(p.enum, `${at}.enum`, "choice", report);
    }
  });
  if (b.trust) checkTrust(b.trust, `${path}.trust`, report);
}

function checkTrust(t: NonNullable<BehaviourInput["trust"]>, path: string, add: Add): void {
  if (t.min !== undefined && t.max !== undefined && t.min >= t.max) return add(`${path}.max`, "must be greater than min");
  const r = resolveTrust({ ...t, enabled: true })!;
  if (r.min >= r.max) return add(path, `give min and max: the range ${r.min}..${r.max} is empty`);
  if (r.initial < r.min || r.initial > r.max) add(`${path}.initial`, `must be within min..max (${r.min}..${r.max})`);
  (t.labels ?? []).forEach((l, i) => {
    if (i > 0 && l.min <= t.labels![i - 1].min) add(`${path}.labels[${i}].min`, "thresholds must rise: each min above the one before");
    if (l.min < r.min || l.min > r.max) add(`${path}.labels[${i}].min`, `must be within min..max (${r.min}..${r.max})`);
  });
}

function duplicates(names: string[], path: string, what: string, add: Add, suffix = ""): void {
  const seen = new Set<string>();
  names.forEach((n, i) => {
    if (seen.has(n)) add(`${path}[${i}]${suffix}`, `duplicate ${what} '${n}'`);
    seen.add(n);
  });
}
