import { nowIso, type ServiceContext } from "../core/context.ts";
import { touchMind } from "../lore/minds/mindStore.ts";
import type { BehaviourInput } from "./behaviourModel.ts";
import { projectBehaviours, writeBehaviour } from "./behaviourStore.ts";

/**
 * Writes a mind's behaviour (null removes it), the caller holding the write transaction: the one place the
 * admin API and lore packs store it. A change dates the mind (updatedAt), as any other field of it would.
 */
export function saveMindBehaviour(ctx: ServiceContext, projectId: string, mindId: string, behaviour: BehaviourInput | null): boolean {
  const at = nowIso(ctx);
  const changed = writeBehaviour(ctx.db, projectId, mindId, behaviour, at);
  if (changed) touchMind(ctx.db, mindId, at);
  return changed;
}

/** Adds each mind's authored behaviour (null: none) to its view (the admin API's minds). */
export function withBehaviour<V extends { id: string }>(ctx: ServiceContext, projectId: string, views: V[]): (V & { behaviour: BehaviourInput | null })[] {
  const all = projectBehaviours(ctx.db, projectId);
  return views.map((v) => ({ ...v, behaviour: all.get(v.id) ?? null }));
}
