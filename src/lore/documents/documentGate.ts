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
    if (input.when === null || input.when === "") out.when = null;
    else if (typeof input.when !== "string") p.add("when", "must be a condition (text) or null");
    else if (input.when.length > CONDITION_LIMITS.chars) p.add("when", `at most ${CONDITION_LIMITS.chars} characters`);
    else {
      for (const problem of conditionProblems("when", input.when, declarationsOf(readStateSchema(ctx, projectId)))) p.list.push(problem);
      out.when = input.when;
    }
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
