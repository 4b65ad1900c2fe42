import type { LlmEngine } from "../llm/LlmEngine.ts";
import type { ServiceContext } from "../core/context.ts";
import { listProjects } from "../projects/projectService.ts";
import { readMinds } from "../lore/minds/readMinds.ts";
import { loadMindProfile } from "./mindProfile.ts";
import { systemPrompt } from "./prompt/systemPrompt.ts";

/** Minds warmed at start: the most talked-to first (each prefix snapshot costs one evaluation of its prompt). */
export const WARM_MINDS_AT_START = 32;

/**
 * Queues the static prompt of the most used minds for background evaluation (KV prefix
 * snapshots), so a new player's first turn with them starts warm. A mind whose prompt is
 * already saved is only looked up. Returns how many were queued.
 */
export function warmKnownMinds(ctx: ServiceContext, llm: Pick<LlmEngine, "warmMind">, limit = WARM_MINDS_AT_START): number {
  const minds = listProjects(ctx)
    .flatMap((p) => readMinds(ctx, p.id, { onlyWithTags: true }).map((m) => ({ projectId: p.id, id: m.id, n: m.interactionCount ?? 0 })))
    .sort((a, b) => b.n - a.n)
    .slice(0, limit);
  for (const m of minds) llm.warmMind(systemPrompt(loadMindProfile(ctx, m.projectId, m.id)));
  return minds.length;
}

/** After a mind (or what its prompt shows) changed: its new prompt is warmed in the background. */
export function warmMind(ctx: ServiceContext, llm: Pick<LlmEngine, "warmMind"> | null, projectId: string, mindId: string): void {
  if (!llm) return;
  try {
    llm.warmMind(systemPrompt(loadMindProfile(ctx, projectId, mindId)));
  } catch {
    // a mind deleted meanwhile: nothing to warm
  }
}
