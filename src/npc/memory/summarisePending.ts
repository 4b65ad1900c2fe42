import type { AppContext } from "../../core/context.ts";
import type { TextModel } from "../../generation/types.ts";
import { writeTx } from "../../db/openDatabase.ts";
import { storeMemories } from "./storeMemories.ts";
import { summariseSession } from "./summariseSession.ts";
import {
  deletePendingSummary,
  failPendingSummary,
  nextPendingSummary,
  pendingSummaryExists,
  savePendingDrafts,
  type PendingSummary,
} from "./pendingSummaryStore.ts";

/** The job's name (the scheduler's and `/admin/v1/jobs/{name}/run`'s); a checkpoint kicks it. */
export const MEMORY_SUMMARY_JOB = "memory-summary";

/** Failed attempts after which a session's summary is given up (logged). */
export const MAX_SUMMARY_ATTEMPTS = 5;
/**
 * Wait before the first retry, doubled at each failure (1, 2, 4, 8 minutes): a backend down for a quarter of
 * an hour loses no session, however many checkpoints kick the job meanwhile.
 */
export const SUMMARY_RETRY_MS = 60_000;

export type SummaryDeps = Pick<AppContext, "db" | "clock" | "vectors" | "log"> & {
  generation: TextModel | null;
  config: Pick<AppContext["config"], "generationTimeoutMs">;
};

export interface SummaryRun {
  /** sessions whose memories were stored (possibly none: a summary may find nothing worth keeping) */
  summarised: number;
  memories: number;
  /** failed this time, retried at a later run */
  failed: number;
  /** given up after MAX_SUMMARY_ATTEMPTS */
  abandoned: number;
  /** left for later: shutdown, or no model to summarise with */
  waiting: number;
}

type Outcome = { kind: "stored"; memories: number } | { kind: "erased" } | { kind: "stopped" } | { kind: "failed"; abandoned: boolean };

/**
 * The summary of a session does not run on the session's own sequence: the player's next turn (a fresh
 * session) keeps that one and never waits behind the summary. The key has the shape of a conversation key
 * (project:…:player), so erasing the player drops this KV state too (llm/kv/forgetPlayer.ts).
 */
export function summaryConversationKey(projectId: string, playerId: string): string {
  return `${projectId}:memory-summary:${playerId}`;
}

/**
 * The memory-summary job: summarises the sessions that reached their limit, oldest first, one at a time.
 * Each row is deleted only when its memories are stored (storeMemories' `done`), or after MAX_SUMMARY_ATTEMPTS
 * failures (each retried later, backing off). A row whose player was erased meanwhile stores nothing. A shutdown lets the running summary finish
 * (its generation is not tied to the job's signal); one cut by the model's disposal stays for the next start.
 */
export async function summarisePendingSessions(deps: SummaryDeps, signal: AbortSignal): Promise<SummaryRun> {
  const run: SummaryRun = { summarised: 0, memories: 0, failed: 0, abandoned: 0, waiting: 0 };
  let after = 0;
  const due = () => nextPendingSummary(deps.db, after, deps.clock.now().toISOString());
  for (let row = due(); row; row = due()) {
    after = row.id;
    if (signal.aborted || !deps.generation) {
      run.waiting++;
      continue;
    }
    const r = await summarisePendingSession(deps, row, signal);
    if (r.kind === "stored") {
      run.summarised++;
      run.memories += r.memories;
    } else if (r.kind === "failed") {
      if (r.abandoned) run.abandoned++;
      else run.failed++;
    } else if (r.kind === "stopped") {
      run.waiting++;
    }
  }
  return run;
}

/** One row: its summary (unless already written), then its memories; the row goes with the last of them. */
export async function summarisePendingSession(deps: SummaryDeps, row: PendingSummary, signal: AbortSignal): Promise<Outcome> {
  let drafts = row.drafts;
  try {
    if (drafts === null) {
      const summary = await summariseSession(
        deps.generation!,
        { mindName: row.mindName, playerId: row.playerId, messages: row.messages },
        { timeoutMs: deps.config.generationTimeoutMs, conversationKey: summaryConversationKey(row.projectId, row.playerId) },
      );
      // Cut by the model's disposal (shutdown): the session waits for the next start.
      if (summary.finishReason === "abort") return { kind: "stopped" };
      // Kept on the row, so that a store cut short (a crash) is replayed as it was, never summarised twice.
      if (!savePendingDrafts(deps.db, row.id, summary.memories)) return { kind: "erased" };
      drafts = summary.memories;
    }
    let done = false;
    const stored = await storeMemories(
      deps,
      { projectId: row.projectId, mindId: row.mindId, playerId: row.playerId, drafts },
      {
        // The erase of a player deletes their rows: a summary that finds its row gone stores nothing.
        stillWanted: () => pendingSummaryExists(deps.db, row.id),
        done: () => {
          deletePendingSummary(deps.db, row.id);
          done = true;
        },
      },
    );
    return done ? { kind: "stored", memories: stored.length } : { kind: "erased" };
  } catch (e) {
    if (signal.aborted) return { kind: "stopped" };
    const err = e instanceof Error ? e.message : String(e);
    const retryAfter = new Date(deps.clock.now().getTime() + SUMMARY_RETRY_MS * 2 ** row.attempts).toISOString();
    const attempts = failPendingSummary(deps.db, row.id, err, retryAfter);
    // The row went meanwhile (its player erased, its mind or project deleted): nothing is left to retry.
    if (attempts === 0) return { kind: "erased" };
    const abandoned = attempts >= MAX_SUMMARY_ATTEMPTS;
    if (abandoned) writeTx(deps.db, () => deletePendingSummary(deps.db, row.id));
    deps.log.warn(abandoned ? "memory summary given up: the session's memories are lost" : "memory summary failed; retried at the next run", {
      projectId: row.projectId,
      mindId: row.mindId,
      attempts,
      err,
    });
    return { kind: "failed", abandoned };
  }
}
