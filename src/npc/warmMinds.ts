import type { AppContext } from "../core/context.ts";
import type { LlmEngine } from "../llm/LlmEngine.ts";
import { loadMindProfile, type MindProfile } from "./mindProfile.ts";
import { rechooseSharedLore, sharedLoreFor, sharedLoreOutdated } from "./sharedLore/sharedLore.ts";
import { fitMindPrompt } from "./prompt/fitStaticPrompt.ts";
import { mostUsedMinds } from "./sharedLore/sharedLoreStore.ts";

/** Minds kept warm: the most talked-to first (each prefix snapshot costs one evaluation of its prompt). */
export const WARM_MINDS_AT_START = 32;
/** Every this many ticks the warmer also asks whether a mind's most retrieved lore moved enough to choose again (rechoice.ts). */
const HITS_CHECK_EVERY = 12;

type Ctx = Pick<AppContext, "db" | "clock" | "config" | "llm" | "generation">;
type Warm = Pick<LlmEngine, "warmMind">;

/** A mind's static prompt as its next turn will show it (system text and shared lore), or null when it is gone. */
export function mindStaticPrompt(ctx: Ctx, projectId: string, mindId: string): string | null {
  return staticTurn(ctx, projectId, mindId)?.text ?? null;
}

/** The static prompt and the name the mind's turns are spoken by (a model without a chat template lays the prompt out for it). */
function staticTurn(ctx: Ctx, projectId: string, mindId: string): { text: string; speaker: string } | null {
  const mind = warmableMind(ctx, projectId, mindId);
  return mind ? { text: fittedPrompt(ctx, projectId, mind), speaker: mind.entityName } : null;
}

/** Fitted to the context as a turn fits it (prepareTurn.ts), else the snapshot would never match a turn's prefix. */
function fittedPrompt(ctx: Ctx, projectId: string, mind: MindProfile): string {
  return fitMindPrompt(ctx, mind, sharedLoreFor(ctx, projectId, mind, mind.knowledgeTags)).text;
}

function warmableMind(ctx: Ctx, projectId: string, mindId: string): MindProfile | null {
  try {
    const mind = loadMindProfile(ctx, projectId, mindId);
    return mind.knowledgeTags.length ? mind : null;
  } catch {
    return null; // deleted meanwhile: nothing to warm
  }
}

/**
 * Queues the static prompt of the most used minds for background evaluation (KV prefix
 * snapshots), so a new player's first turn with them starts warm. A mind whose prompt is
 * already saved is only looked up. Returns how many were queued.
 */
export function warmKnownMinds(ctx: Ctx, llm: Warm, limit = WARM_MINDS_AT_START): number {
  let n = 0;
  for (const m of mostUsedMinds(ctx.db, limit)) {
    const prompt = staticTurn(ctx, m.projectId, m.id);
    if (prompt === null) continue;
    llm.warmMind(prompt.text, prompt.speaker);
    n++;
  }
  return n;
}

/** After a mind (or what its prompt shows) changed: its new prompt is warmed in the background. */
export function warmMind(ctx: Ctx, llm: Warm | null, projectId: string, mindId: string): void {
  const prompt = llm ? staticTurn(ctx, projectId, mindId) : null;
  if (prompt !== null) llm!.warmMind(prompt.text, prompt.speaker);
}

/**
 * Re-warms minds whose static prompt changed, off the request path: a scheduler
 * job ticks every few seconds and compares each kept-warm mind's static prompt — the mind, its
 * relationships, location, and shared lore, i.e. exactly what a turn would send — with the last
 * tick's. A prompt is warmed once it stayed the same for one whole tick (debounced: an author's
 * burst of edits, or the indexer working through a pack, costs one evaluation, not one per edit).
 * A shared-lore choice made from other lore than the current (documents indexed since, at start or
 * while running) is made again by reading the prompt (sharedLore.ts); at first sight such a mind is
 * warmed too, as what was warmed at start predates it. Every HITS_CHECK_EVERY ticks the retrieval
 * counts are asked whether a new choice is due (rarely: rechoice.ts). A new engine (a model change)
 * re-warms every kept-warm mind.
 *
 * Change detection compares the prompts themselves, not timestamps: whatever path changed a mind
 * (HTTP, a pack import, the CLI in another process), the next tick sees it.
 */
export class MindWarmer {
  private readonly prompts = new Map<string, string>();
  private readonly pending = new Set<string>();
  private engine: unknown = undefined;
  private ticks = 0;

  constructor(
    private readonly ctx: Ctx,
    private readonly limit = WARM_MINDS_AT_START,
  ) {}

  /** One look: returns what it queued (warmed) and what waits for a quiet tick (pending). */
  tick(): { warmed: number; pending: number } {
    const llm = this.ctx.llm;
    const first = this.engine === undefined;
    const newEngine = !first && llm !== this.engine;
    this.engine = llm;
    if (!llm) return { warmed: 0, pending: 0 };
    const checkHits = ++this.ticks % HITS_CHECK_EVERY === 0;
    let warmed = 0;
    const seen = new Set<string>();
    for (const m of mostUsedMinds(this.ctx.db, this.limit)) {
      const key = `${m.projectId}:${m.id}`;
      seen.add(key);
      const mind = warmableMind(this.ctx, m.projectId, m.id);
      if (!mind) continue;
      const outdated = sharedLoreOutdated(this.ctx, m.projectId, mind);
      if (checkHits && !outdated) rechooseSharedLore(this.ctx, m.projectId, mind);
      const text = fittedPrompt(this.ctx, m.projectId, mind);
      const last = this.prompts.get(key);
      this.prompts.set(key, text);
      if (newEngine) {
        this.pending.delete(key);
        llm.warmMind(text, mind.entityName);
        warmed++;
      } else if (last === undefined) {
        // First sight: at start App.start warmed it already, unless its shared lore was made again just now;
        // later, a mind that became one of the most used.
        if (!first || outdated) this.pending.add(key);
      } else if (last !== text) {
        this.pending.add(key);
      } else if (this.pending.delete(key)) {
        llm.warmMind(text, mind.entityName);
        warmed++;
      }
    }
    for (const key of this.prompts.keys()) {
      if (!seen.has(key)) {
        this.prompts.delete(key);
        this.pending.delete(key);
      }
    }
    return { warmed, pending: this.pending.size };
  }
}
