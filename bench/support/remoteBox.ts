// The box bench/scale.ts and bench/http-cost.ts load: one Lorehold process on a data folder of its own (a copy of a
// world's, or empty), generation = "remote" on a real llama-server (1 thread, 2 slots of 4,096 tokens) serving a tiny
// random-weight model, so a turn's generation costs the box little and what is measured is the control plane.
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App } from "../../src/app/App.ts";
import { loadConfig } from "../../src/config/config.ts";
import { silentLogger } from "../../src/ops/logger.ts";
import { writeTinyGguf } from "../../test/support/tinyGguf.ts";
import { llamaServerBinary, startLlamaServer, type LlamaServer } from "../../test/support/llamaServer.ts";

export interface RemoteBox {
  app: App;
  /** the box's temp folder (its data folder is `data` inside; the bench may write its plans here) */
  dir: string;
  llama: LlamaServer;
  /** stops the server and starts a new one on the same data folder and llama-server (a restarted box); `app` is the new one */
  restart(): Promise<App>;
  /** stops the server and the llama-server, removes the folder */
  stop(): Promise<void>;
}

export interface RemoteBoxOptions {
  /** the temp folder's name: lorehold-bench-<name>- */
  name: string;
  maxReplyTokens: number;
  /** words the tiny model has as single tokens (as common words are in a real model's vocab) */
  extraWords?: string[];
  /** a world's folder (bench/preview-overhead.ts built it): its `data` is copied, so the box starts as a restarted one */
  world?: string;
  log?: (line: string) => void;
  /** config flags beside the box's own (e.g. memoryAppendWindowMs) */
  flags?: Record<string, unknown>;
}

/** Starts the llama-server, copies the world if any, and creates the app (neither listening nor scheduling yet). */
export async function startRemoteBox(opts: RemoteBoxOptions): Promise<RemoteBox> {
  const bin = llamaServerBinary();
  if (!bin) throw new Error("no llama-server binary: run scripts/ci/backends.sh first");
  const dir = mkdtempSync(join(tmpdir(), `lorehold-bench-${opts.name}-`));
  const dataDir = join(dir, "data");
  const modelPath = join(dir, "tiny.gguf");
  writeTinyGguf(modelPath, { nCtx: 4096, name: "scale-tiny", ...(opts.extraWords ? { extraWords: opts.extraWords } : {}) });
  const llama = await startLlamaServer({ binary: bin, model: modelPath, parallel: 2, slotContext: 4096, threads: 1 });
  const stopLlama = async () => {
    await llama.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const backend = { url: llama.url, model: "tiny", apiKey: null, maxConcurrent: 2, weight: 1, timeoutMs: 60_000, kind: "llama-server" as const };
    const config = loadConfig({
      cwd: dir,
      env: {},
      flags: { dataDir, modelsDir: dir, generation: "remote", backends: [backend], contextSize: 4096, maxReplyTokens: opts.maxReplyTokens, threads: 1, port: 0, host: "127.0.0.1", logLevel: "silent", ...opts.flags } as never,
    });
    if (opts.world) {
      opts.log?.(`copying ${opts.world}`);
      cpSync(join(opts.world, "data"), dataDir, { recursive: true });
    }
    const box: RemoteBox = {
      app: await App.create(config, { logger: silentLogger }),
      dir,
      llama,
      async restart() {
        await box.app.stop();
        box.app = await App.create(config, { logger: silentLogger });
        return box.app;
      },
      async stop() {
        await box.app.stop().catch(() => undefined);
        await stopLlama();
      },
    };
    return box;
  } catch (e) {
    await stopLlama();
    throw e;
  }
}

/**
 * Settles what a restarted box does in its first minutes, so a load measures a running box: the project's vectors
 * loaded, their snapshot written and index trained, LanceDB compacted; with `jobs` (a started scheduler) also the
 * minds' shared-lore choices made ahead of their first turns, until a tick has nothing left, and the one-time copies
 * a server makes on a world from before them (a job this checkout lacks is skipped; a world that had them is a
 * one-row check each).
 */
export async function settleRemoteBox(app: App, projectId: string, jobs: boolean, log?: (line: string) => void): Promise<void> {
  const vectors = app.ctx.vectors;
  await vectors.warm([projectId]);
  await vectors.snapshotsIdle();
  await (await vectors.projectCache(vectors.activeGeneration(), projectId)).indexIdle();
  await vectors.optimizeNow();
  if (!jobs) return;
  // the tick started with the scheduler may have found the project busy: ticks until one finds nothing to do
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  for (let i = 0; i < 5; i++) {
    const r = (await app.scheduler.trigger("shared-lore-warmup"))?.lastResult as { chosen?: number; walked?: number } | null | undefined;
    log?.(`shared-lore warm-up tick: ${JSON.stringify(r ?? null)} at ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    if (!r || ((r.chosen ?? 0) === 0 && (r.walked ?? 0) === 0)) break;
  }
  const c1 = process.cpuUsage(c0);
  log?.(`shared-lore warm-up settled: ${((performance.now() - t0) / 1000).toFixed(1)} s wall, ${((c1.user + c1.system) / 1e6).toFixed(1)} s of this process's CPU (with whatever else it ran meanwhile)`);
  for (const job of ["memory-vector-fill", "world-memory-words"]) await app.scheduler.trigger(job);
}
