import { rmSync } from "node:fs";
import type { Config } from "../config/config.ts";
import type { ServiceContext } from "../core/context.ts";
import { nowIso } from "../core/context.ts";
import { ApiError } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import { indexUntilDone } from "../lore/indexer/indexUntilDone.ts";
import type { InteractDeps } from "../core/context.ts";
import { finishRun, getRun, insertRun, markRunning } from "./loreTestStore.ts";
import type { SuiteText } from "./loadSuites.ts";
import { prepareSuite } from "./loreTestService.ts";
import { copyDataDir, openScratchBudget } from "./scratchProject.ts";
import { runSuite, type SuiteOptions, type SuiteSummary } from "./runSuite.ts";

/** A booted App on the copy, as the runner needs it (the CLI boots it: only CLI commands import the App). */
export interface BootedApp {
  ctx: InteractDeps;
  triggerJob(name: string): Promise<unknown>;
  stop(): Promise<void>;
}

export interface ScratchAppRun {
  runId: string;
  summary: SuiteSummary;
}

/**
 * A suite run outside a server (the CLI, CI): the data dir copied into a temporary folder, a whole App
 * booted on the copy (its own model, or the named backend; KV snapshots off, nothing written beside the
 * copy), the copy's pending documents indexed, the suite run, the App stopped and the copy deleted. The
 * run and its results are stored in the real database, so `--compare` and the Studio see them.
 */
export async function runInScratchApp(
  store: ServiceContext,
  config: Config,
  projectId: string,
  files: SuiteText[],
  boot: (config: Config) => Promise<BootedApp>,
  opts: SuiteOptions & { label?: string | null } = {},
): Promise<ScratchAppRun> {
  const cases = prepareSuite(store, projectId, files);
  const runId = newId("ltr");
  insertRun(store.db, { id: runId, projectId, label: opts.label ?? null, createdAt: nowIso(store), suite: JSON.stringify(files), options: JSON.stringify({ runs: opts.runs ?? null }), totalCases: cases.length });
  markRunning(store.db, runId, nowIso(store));
  const dir = copyDataDir(store.db, config);
  let app: BootedApp | null = null;
  try {
    const booted = await boot({ ...config, dataDir: dir, kvSnapshots: "off" });
    app = booted;
    if (!app.ctx.generation) throw new ApiError(503, "No chat model", { details: [`${app.ctx.modelStatus.error ?? "no model loaded"}: pass --model FILE or set model in lorehold.toml`] });
    await indexUntilDone((name) => booted.triggerJob(name));
    openScratchBudget(app.ctx, projectId);
    const summary = await runSuite(store, app.ctx, { id: runId, projectId }, cases, opts);
    return { runId, summary };
  } catch (e) {
    if (getRun(store.db, projectId, runId)?.status === "RUNNING") {
      finishRun(store.db, runId, { status: "ERROR", at: nowIso(store), error: e instanceof ApiError ? `${e.error}: ${((e.extra.details as string[]) ?? []).join("; ")}` : e instanceof Error ? e.message : String(e) });
    }
    throw e;
  } finally {
    await app?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
