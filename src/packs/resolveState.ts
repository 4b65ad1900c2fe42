import { conditionProblems } from "../conditions/checkCondition.ts";
import { isPlainObject, type Problems } from "../lore/validate/fields.ts";
import { checkStateSchema, declarationsOf, type StateSchema } from "../state/stateSchema.ts";
import { actionConditionProblems } from "../behaviour/validateBehaviour.ts";
import type { BehaviourInput } from "../behaviour/behaviourModel.ts";

/**
 * A pack's `state:` section (the project's state declarations: typed keys with their defaults, and
 * exclusive groups), checked by the same rules as the admin API. Null when the pack has none: the
 * project's declarations then stay as they are. A section is the whole schema: keys it leaves out
 * are no longer declared.
 */
export function resolveState(pack: Record<string, unknown>, p: Problems): StateSchema | null {
  if (!isPlainObject(pack.state)) return null;
  // checkShape reported shape problems already; the schema's own rules only on a well-shaped section.
  if (p.list.some((x) => x.startsWith("state"))) return null;
  const section = Object.fromEntries(Object.entries(pack.state).filter(([, v]) => v !== null));
  return checkStateSchema(section, "state", p);
}

/**
 * Every condition of the pack (documents' `when` and `reveal`, minds' `knowledge[].when`, conditional hints and
 * restrictions, and `behaviour.actions[].when`) checked as the admin API checks them: parse, known
 * functions, types against the declared keys. Also a tag named twice in one mind's knowledge.
 */
export function checkPackConditions(pack: Record<string, unknown>, schema: StateSchema, p: Problems): void {
  const declared = declarationsOf(schema);
  const entries = (section: string) => (Array.isArray(pack[section]) ? (pack[section] as unknown[]) : []);
  entries("documents").forEach((d, i) => {
    if (!isPlainObject(d)) return;
    if (typeof d.when === "string" && d.when.trim()) p.list.push(...conditionProblems(`documents[${i}].when`, d.when, declared));
    if (typeof d.reveal === "string" && d.reveal.trim()) {
      p.list.push(...conditionProblems(`documents[${i}].reveal`, d.reveal, declared));
      if (d.secret !== true) p.add(`documents[${i}].reveal`, "only a secret document (secret: true) has a reveal condition");
    }
  });
  entries("minds").forEach((m, i) => {
    if (!isPlainObject(m)) return;
    for (const field of ["hints", "restrictions"]) {
      const lines = Array.isArray(m[field]) ? (m[field] as unknown[]) : [];
      lines.forEach((l, j) => {
        if (isPlainObject(l) && typeof l.when === "string" && l.when.trim()) p.list.push(...conditionProblems(`minds[${i}].${field}[${j}].when`, l.when, declared));
      });
    }
    if (isPlainObject(m.behaviour) && !p.list.some((x) => x.startsWith(`minds[${i}].behaviour`))) {
      p.list.push(...actionConditionProblems(m.behaviour as BehaviourInput, `minds[${i}].behaviour`, declared));
    }
    if (!Array.isArray(m.knowledge)) return;
    const seen = new Set<string>();
    m.knowledge.forEach((k, j) => {
      if (!isPlainObject(k)) return;
      if (typeof k.tag === "string") {
        if (seen.has(k.tag)) p.add(`minds[${i}].knowledge[${j}].tag`, `'${k.tag}' is named twice: join its conditions with ||`);
        seen.add(k.tag);
      }
      if (typeof k.when === "string" && k.when.trim()) p.list.push(...conditionProblems(`minds[${i}].knowledge[${j}].when`, k.when, declared));
    });
  });
}
