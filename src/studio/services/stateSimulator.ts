import type { ServiceContext } from "../../core/context.ts";
import { invalidRequest } from "../../core/errors.ts";
import { checkCondition } from "../../conditions/checkCondition.ts";
import { TurnConditions } from "../../conditions/compileCondition.ts";
import { isPlainObject } from "../../lore/validate/fields.ts";
import { readMinds } from "../../lore/minds/readMinds.ts";
import { splitLines } from "../../lore/minds/personaFields.ts";
import { getProject } from "../../projects/projectService.ts";
import { loreGate, projectConditions } from "../../retrieval/loreGate.ts";
import { keyProblem, STATE_LIMITS, valueProblem, type StateValue } from "../../state/stateKeys.ts";
import { declarationsOf, declaredValueProblem, defaultsOf } from "../../state/stateSchema.ts";
import { readStateSchema } from "../../state/stateService.ts";
import { documentTagRows } from "../studioReadStore.ts";

export interface SimulatedState {
  world?: unknown;
  player?: unknown;
  trust?: unknown;
  turn?: unknown;
}

/**
 * Who knows what, for a world and player state the author sets (nothing is stored, nothing generated): the
 * same scope and gate a turn builds (src/retrieval/turnGate.ts, loreGate.ts), evaluated for every mind of
 * the project at the start of a conversation (no timer has a note yet), with the reason for each verdict.
 */
export function simulateKnowledge(ctx: ServiceContext, projectId: string, body: SimulatedState) {
  getProject(ctx, projectId);
  const schema = readStateSchema(ctx, projectId);
  const problems: string[] = [];
  const scopeOf = (name: "world" | "player"): Map<string, StateValue> => {
    const v = body[name] ?? {};
    if (!isPlainObject(v)) {
      problems.push(`${name}: must be an object of key → value`);
      return new Map();
    }
    const entries = Object.entries(v);
    if (entries.length > STATE_LIMITS.keysPerScope) problems.push(`${name}: at most ${STATE_LIMITS.keysPerScope} keys`);
    for (const [k, x] of entries) {
      const why = keyProblem(k) ?? valueProblem(x) ?? declaredValueProblem(schema.stateKeys[k], x as StateValue);
      if (why) problems.push(`${name}.${k}: ${why}`);
    }
    return new Map(entries as [string, StateValue][]);
  };
  const world = scopeOf("world");
  const player = scopeOf("player");
  const num = (name: "trust" | "turn", min: number, max: number): number => {
    const v = body[name] ?? 0;
    if (typeof v === "number" && Number.isInteger(v) && v >= min && v <= max) return v;
    problems.push(`${name}: must be an integer from ${min} to ${max}`);
    return 0;
  };
  const trust = num("trust", -100, 100);
  const turn = num("turn", 0, 10_000);
  if (problems.length) throw invalidRequest(...problems);

  const conditions = new TurnConditions({ player, world, defaults: defaultsOf(schema), trust, turn }, projectConditions(ctx.db, projectId));
  const gate = loreGate(ctx, projectId, { conditions, turn, arrivals: new Map() });
  const verdicts = new Map(gate.trace.map((v) => [v.documentId, v]));
  const docs = new Map<string, { id: string; name: string; tags: string[] }>();
  for (const r of documentTagRows(ctx.db, projectId)) {
    const d = docs.get(r.id) ?? { id: r.id, name: r.name, tags: [] };
    if (r.tag) d.tags.push(r.tag);
    docs.set(r.id, d);
  }
  const minds = readMinds(ctx, projectId, { knowledge: true }).map((m) => {
    const knowledge = (m.knowledge ?? []).map((k) => ({ ...k, open: conditions.holds(k.when) }));
    const why = (tag: string): string | null => {
      if (m.knowledgeTags.includes(tag)) return `tag ${tag} (always known)`;
      const k = knowledge.find((x) => x.tag === tag);
      return k ? `tag ${tag}: ${k.when} is ${k.open ? "true" : "false"}` : null;
    };
    const documents = [...docs.values()].flatMap((d) => {
      const reasons = d.tags.map(why).filter((r): r is string => r !== null);
      if (reasons.length === 0) return []; // never this mind's: no tag of it is the mind's at all
      const byTag = d.tags.some((t) => m.knowledgeTags.includes(t) || knowledge.some((k) => k.tag === t && k.open));
      const v = verdicts.get(d.id);
      const gated = v ? [`${v.when !== null ? `when ${v.when}: ` : ""}${v.reason}`] : [];
      return [{ documentId: d.id, name: d.name, in: byTag && (v?.open ?? true), reasons: [...reasons, ...gated] }];
    });
    const lines = splitLines(m).conditional.map((l) => ({ ...l, applies: conditions.holds(l.when) }));
    return { id: m.id, entityName: m.entityName, knowledge, documents, lines };
  });
  return { scope: { world: Object.fromEntries(world), player: Object.fromEntries(player), defaults: Object.fromEntries(defaultsOf(schema)), trust, turn }, minds };
}

/** A condition's problems against the project's declared keys (the Studio checks as the author types). */
export function checkProjectCondition(ctx: ServiceContext, projectId: string, condition: unknown) {
  getProject(ctx, projectId);
  if (typeof condition !== "string" || condition.trim() === "") throw invalidRequest("condition: required, the condition's text");
  const problems = checkCondition(condition, declarationsOf(readStateSchema(ctx, projectId)));
  return { ok: problems.length === 0, problems: problems.map((p) => ({ at: p.at, reason: p.reason, message: `${p.reason} (at character ${p.at + 1})` })) };
}
