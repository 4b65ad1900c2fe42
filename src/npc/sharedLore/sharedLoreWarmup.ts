import type { AppContext } from "../../core/context.ts";
import { indexingPending, loreRevision } from "../../lore/documents/documentStore.ts";
import { knowledgeTagNames } from "../../lore/minds/mindStore.ts";
import { generationContext } from "../tokenBudget.ts";
import { loadMindProfile, type MindProfile } from "../mindProfile.ts";
import { fitMindPromptForTurn, fitOptions } from "../prompt/fitStaticPrompt.ts";
import { prepareSharedLoreCounts, selectSharedLore, sharedLoreBudget, sharedLoreCandidates, sharedLoreFor, sharedLoreOutdated } from "./sharedLore.ts";
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
 * Made with the server's own tokenizer or the character estimate (no model). With a remote pool, whose estimate
 * moves with what it has counted, every text the choice counts is first counted by a server's /tokenize (in the
 * background: one call at a time, after the requests' own; kept in SQLite, so a restart resumes where it stopped),
 * as a turn that has to choose does too (sharedLore.ts, prepareSharedLoreCounts); then the static prompt's fit is
 * counted as well (also for a mind whose choice was made before), so the mind's first turn asks the server nothing.
 * A mind whose counts could not be made (no server answering) keeps only the walk, and its pass is made again on a
 * later tick.
 * A pass over a project waits for its lore to be quiet (nothing queued for the indexer, or the revision unmoved
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
      const pass = await this.pass(projectId, revision, signal);
      chosen += pass.chosen;
      walked += pass.walked;
      if (pass.complete) {
        this.done.set(projectId, revision);
        projects++;
      }
      if (signal?.aborted) break;
    }
    return { chosen, walked, projects };
  }

  private async pass(projectId: string, revision: number, signal?: AbortSignal): Promise<{ chosen: number; walked: number; complete: boolean }> {
    const ctx = this.ctx;
    const remote = ctx.generation?.mode === "remote";
    let chosen = 0;
    let walked = 0;
    let slice = 0;
    let complete = true;
    for (const id of mindsByUse(ctx.db, projectId)) {
      if (signal?.aborted || loreRevision(ctx.db, projectId) !== revision) return { chosen, walked, complete: false };
      const mind = { id, knowledgeTags: knowledgeTagNames(ctx.db, id) };
      // a mind deleted meanwhile has no tags (and no row): nothing to choose
      if (mind.knowledgeTags.length === 0) continue;
      if (!sharedLoreOutdated(ctx, projectId, mind)) {
        // Chosen before (by a turn, or by an earlier process): with a remote pool its static prompt is still counted
        // here, once a pass (the counts kept are read back; only what no server counted yet is asked).
        if (remote) {
          await this.countStaticPrompt(projectId, id);
          // counts read back from SQLite resolve at once: without this the pass would hold the event loop
          await new Promise((resolve) => setImmediate(resolve));
        }
        continue;
      }
      if (remote) {
        // read once (the walk kept, then its rows): counted here and chosen from below
        const candidates = sharedLoreCandidates(ctx, projectId, mind);
        const counted = await prepareSharedLoreCounts(ctx, projectId, mind, true, candidates);
        if (signal?.aborted || loreRevision(ctx.db, projectId) !== revision) return { chosen, walked, complete: false };
        if (!counted) {
          // no server to count by: the walk is kept, the choice left to the turn or a later pass
          walked++;
          complete = false;
          await new Promise((resolve) => setImmediate(resolve));
          continue;
        }
        // A turn of the mind may have chosen while the counts were made: the same choice, made once. Otherwise the
        // candidates are as read (their order moves only with the mind's retrieval counts, which only its turns
        // move, after making the choice; the lore's revision was checked above).
        if (sharedLoreOutdated(ctx, projectId, mind)) selectSharedLore(ctx, projectId, mind, candidates);
        await this.countStaticPrompt(projectId, id);
      } else selectSharedLore(ctx, projectId, mind);
      chosen++;
      if (++slice >= MINDS_PER_SLICE) {
        slice = 0;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    return { chosen, walked, complete };
  }

  /** The mind's static prompt fitted as its turns fit it (counted by the pool in the background), so its first turn finds every count. */
  private async countStaticPrompt(projectId: string, mindId: string): Promise<void> {
    let mind: MindProfile;
    try {
      mind = loadMindProfile(this.ctx, projectId, mindId);
    } catch {
      return; // deleted meanwhile
    }
    await fitMindPromptForTurn(this.ctx, mind, sharedLoreFor(this.ctx, projectId, mind, mind.knowledgeTags), fitOptions(this.ctx, mind), true);
  }
}
