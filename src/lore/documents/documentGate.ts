import type { ServiceContext } from "../../core/context.ts";
import { conditionProblems } from "../../conditions/checkCondition.ts";
import { CONDITION_LIMITS } from "../../conditions/parseCondition.ts";
import { declarationsOf } from "../../state/stateSchema.ts";
import { readStateSchema } from "../../state/stateService.ts";
import type { Problems } from "../validate/fields.ts";
import type { DocumentGate } from "./documentStore.ts";

/** Timers count turns of a conversation; a session holds at most 1,000 (maxSessionLength). */
export const TIMER_MAX = 1000;
export const TIMERS = ["sticky", "cooldown", "delay"] as const;

/**
 * A document's `when` and timers as authored (admin API, CLI): the condition is checked against the
 * project's declared state keys (src/conditions/checkCondition.ts), each timer is an integer from 0 to
 * 1,000 or null. Returns only the fields given, for the caller to lay over the document's values.
 */
export function checkGate(ctx: ServiceContext, projectId: string, input: Partial<Record<keyof DocumentGate, unknown>>, p: Problems): Partial<DocumentGate> {
  const out: Partial<DocumentGate> = {};
  if (input.when !== undefined) {
    const when = checkCondition(ctx, projectId, "when", input.when, p);
    if (when !== undefined) out.when = when;
  }
  for (const t of TIMERS) {
    const v = input[t];
    if (v === undefined) continue;
    if (v === null) out[t] = null;
    else if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > TIMER_MAX) p.add(t, `must be an integer from 0 to ${TIMER_MAX} (turns) or null`);
    else out[t] = v;
  }
  return out;
}

/**
 * A condition field as authored: null or "" clears it; text is checked against the project's declared state keys.
 * Returns undefined when it has a problem (added to `p`).
 */
export function checkCondition(ctx: ServiceContext, projectId: string, path: string, v: unknown, p: Problems): string | null | undefined {
  if (v === null || v === "") return null;
  if (typeof v !== "string") return void p.add(path, "must be a condition (text) or null");
  if (v.length > CONDITION_LIMITS.chars) return void p.add(path, `at most ${CONDITION_LIMITS.chars} characters`);
  const problems = conditionProblems(path, v, declarationsOf(readStateSchema(ctx, projectId)));
  p.list.push(...problems);
  return problems.length ? undefined : v;
}

/**
 * A secret's `reveal` laid over the document's values `n` (secret already set): a document that stops being a
 * secret loses its condition, and only a secret may have one.
 */
export function checkReveal(ctx: ServiceContext, projectId: string, input: { reveal?: unknown; secret?: unknown }, n: { secret?: boolean; reveal?: string | null }, p: Problems): void {
  if (input.reveal !== undefined) {
    const reveal = checkCondition(ctx, projectId, "reveal", input.reveal, p);
    if (reveal !== undefined) n.reveal = reveal;
  } else if (input.secret === false) n.reveal = null;
  if (n.reveal && !n.secret) p.add("reveal", "only a secret document (secret: true) has a reveal condition");
}
