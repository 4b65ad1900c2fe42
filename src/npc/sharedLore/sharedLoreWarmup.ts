import type { AppContext } from "../../core/context.ts";
import { indexingPending, loreRevision } from "../../lore/documents/documentStore.ts";
import { knowledgeTagNames } from "../../lore/minds/mindStore.ts";
import { generationContext } from "../tokenBudget.ts";
import { selectSharedLore, sharedLoreBudget, sharedLoreOutdated, walkSharedLore } from "./sharedLore.ts";
import { mindsByUse, projectsWithMinds } from "./sharedLoreStore.ts";

type Ctx = Pick<AppContext, "db" | "clock" | "config" | "llm" | "generation">;

/** The scheduler job that runs it (src/npc/npcFeature.ts). */
export const SHARED_LORE_WARMUP_JOB = "shared-lore-warmup";

/** Minds chosen between two turns of the event loop: a request waits behind at most this many choices. */
const MINDS_PER_SLICE = 1;

/**
 * Makes every mind's shared-lore choice ahead of its first turn, off the request path. A choice walks the
 * project's documents in name order until it holds enough chunks the mind may see (sharedLoreStore.ts): ~6 ms of
 * CPU at 100,000 chunks, paid by the first turn of each mind after a world is imported and after every change of
 * its lore (the choice records the lore revision it was made at). A world of 1,000 minds paid it on most turns of
 * its first minutes (BENCHMARKS.md "Big worlds: a mind's first turn").
 *
 * The choice made here is the one that turn would make: the same function on the same inputs (the lore, the
 * mind's tags and its retrieval counts, which only its turns move, and a turn reads the choice before it counts).
 * Made with the server's own tokenizer or the character estimate (no model); with a remote pool only the walk of
 * the candidates is made ahead (see tick). A pass over a project waits for its lore to be quiet (nothing queued for the indexer, or the revision unmoved
 * since the last tick), so an import being indexed does not make a thousand choices per document; it takes the
 * most talked-to minds first, yields to the event loop after each mind, and stops as soon as the revision moves.
 */
export class SharedLoreWarmup {
  /** the revision each project had at the last tick */
  private readonly seen = new Map<string, number>();
  /** the revision each project's last complete pass was made at */
  private readonly done = new Map<string, number>();

  constructor(private readonly ctx: Ctx) {}

  async tick(signal?: AbortSignal): Promise<{ chosen: number; walked: number; projects: number }> {
    const ctx = this.ctx;
    if (sharedLoreBudget(ctx.config, generationContext(ctx)) === 0) return { chosen: 0, walked: 0, projects: 0 };
    // A remote pool counts a text it has not tokenized by the tokens per byte it has seen so far (one a byte before
    // any): its estimate at start, from a few probes, is not the one a turn counts by later, and a choice made with
    // it would keep other lore than the mind's first turn does. There the turn keeps making the choice, and only
    // the walk for its candidates (the costly part, no counting) is made ahead.
    const walkOnly = ctx.generation?.mode === "remote";
    const busy = indexingPending(ctx.db);
    let chosen = 0;
    let walked = 0;
    let projects = 0;
    for (const projectId of projectsWithMinds(ctx.db)) {
      const revision = loreRevision(ctx.db, projectId);
      const last = this.seen.get(projectId);
      this.seen.set(projectId, revision);
      if (this.done.get(projectId) === revision) continue;
      if (last !== revision && busy) continue; // the lore moves: the next quiet tick
      const pass = await this.pass(projectId, revision, walkOnly, signal);
      if (walkOnly) walked += pass.chosen;
      else chosen += pass.chosen;
      if (pass.complete) {
        this.done.set(projectId, revision);
        projects++;
      }
      if (signal?.aborted) break;
    }
    return { chosen, walked, projects };
  }

  private async pass(projectId: string, revision: number, walkOnly: boolean, signal?: AbortSignal): Promise<{ chosen: number; complete: boolean }> {
    let chosen = 0;
    let slice = 0;
    for (const id of mindsByUse(this.ctx.db, projectId)) {
      if (signal?.aborted || loreRevision(this.ctx.db, projectId) !== revision) return { chosen, complete: false };
      const mind = { id, knowledgeTags: knowledgeTagNames(this.ctx.db, id) };
      // a mind deleted meanwhile has no tags (and no row): nothing to choose
      if (mind.knowledgeTags.length === 0 || !sharedLoreOutdated(this.ctx, projectId, mind)) continue;
      if (walkOnly) walkSharedLore(this.ctx, projectId, mind);
      else selectSharedLore(this.ctx, projectId, mind);
      chosen++;
      if (++slice >= MINDS_PER_SLICE) {
        slice = 0;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    return { chosen, complete: true };
  }
}

