import type { ServiceContext } from "../core/context.ts";
import { invalidRequest } from "../core/errors.ts";
import type { Scope } from "../conditions/scope.ts";
import { groupOf, type StateValue } from "./stateKeys.ts";
import { declaredValueProblem, defaultsOf, type StateSchema } from "./stateSchema.ts";
import { readStateSchema } from "./stateService.ts";
import { readScope } from "./stateStore.ts";

/**
 * The condition scope of one turn (docs/internals/turn-pipeline.md, "The condition scope"), built once
 * in gather: the player's stored state with this request's `state` laid over it (never stored; an
 * override of an exclusive group's key hides the player's other keys of that group), the world's
 * state, the declared defaults, trust and the turn count.
 */
export function turnScope(
  ctx: ServiceContext,
  projectId: string,
  q: { playerId: string; overrides?: Record<string, StateValue>; trust?: number; turn: number },
): { scope: Scope; schema: StateSchema } {
  const schema = readStateSchema(ctx, projectId);
  const player = readScope(ctx.db, { projectId, playerId: q.playerId });
  if (q.overrides) {
    const groups = new Map<string, string>();
    const problems = Object.entries(q.overrides).flatMap(([k, v]) => {
      const g = groupOf(k, schema.exclusiveGroups);
      const why = declaredValueProblem(schema.stateKeys[k], v) ?? (g && groups.has(g) ? `'${groups.get(g)}' is set too: one key of exclusive group '${g}' at a time` : null);
      if (g) groups.set(g, k);
      return why ? [`state.${k}: ${why}`] : [];
    });
    if (problems.length) throw invalidRequest(...problems);
    for (const [k, v] of Object.entries(q.overrides)) {
      const g = groupOf(k, schema.exclusiveGroups);
      if (g) for (const other of [...player.keys()]) if (other !== k && other.startsWith(`${g}.`)) player.delete(other);
      player.set(k, v);
    }
  }
  const world = readScope(ctx.db, { projectId, playerId: null });
  return { scope: { player, world, defaults: defaultsOf(schema), trust: q.trust ?? 0, turn: q.turn }, schema };
}
