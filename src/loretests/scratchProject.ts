import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { InteractDeps } from "../core/context.ts";
import { dataPaths, type Config } from "../config/config.ts";
import { openDatabase, type Db } from "../db/openDatabase.ts";
import { VectorStore } from "../vectors/VectorStore.ts";
import { createEmbedder, embedderOptions } from "../vectors/createEmbedder.ts";
import type { Embedder } from "../vectors/Embedder.ts";
import { RateLimiter } from "../ratelimit/RateLimiter.ts";
import { getProject } from "../projects/projectService.ts";
import { grantTopUp } from "../credits/grantTopUp.ts";
import { setRateLimits } from "../ratelimit/rateLimitSettings.ts";
import { RATE_LIMIT_MAX } from "../ratelimit/rateLimitSettings.ts";
import { copyDatabaseTo } from "./loreTestStore.ts";

/**
 * A throwaway copy of a project's data for a lore test run: the database file and the vector store copied
 * into a temporary folder. The run's turns write their sessions, memories, trust, credits and rate-limit
 * counts there, and the folder is deleted after; the real project never sees a test player.
 */
export interface ScratchProject {
  dir: string;
  /** the interact path's dependencies, pointing at the copy (generation is the caller's) */
  deps: InteractDeps;
  close(): Promise<void>;
}

/** Credits a scratch team gets so that a suite never stops on 402 (they exist only in the copy). */
const SCRATCH_CREDITS_MICRO = 1e15;

/** Copies the data dir's database and vector store into a fresh temporary folder. */
export function copyDataDir(db: Db, config: Pick<Config, "dataDir">): string {
  const dir = mkdtempSync(join(tmpdir(), "lorehold-loretest-"));
  try {
    copyDatabaseTo(db, join(dir, "lorehold.db"));
    const lance = dataPaths(config).lance;
    if (existsSync(lance)) cpSync(lance, join(dir, "lance"), { recursive: true });
    return dir;
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

/**
 * What the copy needs so a suite measures the lore and the model, not the project's budget: ample credits
 * for its team and rate limits at their maximum (both only in the copy).
 */
export function openScratchBudget(deps: Pick<InteractDeps, "db" | "clock">, projectId: string): void {
  const project = getProject(deps, projectId);
  grantTopUp(deps, project.teamId, SCRATCH_CREDITS_MICRO, "lore tests (scratch copy)");
  setRateLimits(deps, projectId, { perPlayerPerMinute: RATE_LIMIT_MAX, perProjectPerMinute: RATE_LIMIT_MAX });
}

/**
 * A scratch copy of a running server's project: its own database and vector store in a temporary folder,
 * the server's generation backend (no second model in memory), a limiter of its own, and no scheduler (a
 * memory checkpoint stays a pending summary in the copy).
 */
export async function scratchFromLive(ctx: InteractDeps, projectId: string): Promise<ScratchProject> {
  const dir = copyDataDir(ctx.db, ctx.config);
  let db: Db | null = null;
  let made: Embedder | null = null;
  try {
    db = openDatabase(join(dir, "lorehold.db"));
    // The server's own embedder when its vectors are current; else one of the copy's own, ended with it.
    made = ctx.vectors.embedder ? null : await createEmbedder(ctx.config.embeddingModel, ctx.config.modelsDir, embedderOptions(ctx.config));
    const embedder = ctx.vectors.embedder ?? made!;
    const vectors = await VectorStore.open(join(dir, "lance"), embedder);
    const deps: InteractDeps = {
      db,
      clock: ctx.clock,
      config: { ...ctx.config, dataDir: dir },
      log: ctx.log,
      vectors,
      llm: ctx.llm,
      generation: ctx.generation,
      modelStatus: ctx.modelStatus,
      limiter: new RateLimiter(ctx.clock),
    };
    openScratchBudget(deps, projectId);
    const opened = db;
    const ownEmbedder = made;
    return {
      dir,
      deps,
      async close() {
        await vectors.close();
        await ownEmbedder?.dispose?.();
        opened.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await made?.dispose?.();
    db?.close();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}
