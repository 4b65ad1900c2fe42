import { mkdirSync } from "node:fs";
import type { Server } from "bun";
import { dataPaths, type Config } from "../config/config.ts";
import { systemClock, type Clock } from "../core/clock.ts";
import type { AppContext, ModelStatus } from "../core/context.ts";
import type { Feature, FeatureDeps } from "../core/feature.ts";
import { openDatabase, pingDatabase, type Db } from "../db/openDatabase.ts";
import { appliedMigrations } from "../db/migrate.ts";
import { createHttpApp, type HttpApp } from "../http/createHttpApp.ts";
import { createLogger, type Logger } from "../ops/logger.ts";
import { Scheduler } from "../jobs/Scheduler.ts";
import { createEmbedder, embedderOptions } from "../vectors/createEmbedder.ts";
import { VectorStore } from "../vectors/VectorStore.ts";
import type { AppendTimer } from "../vectors/MemoryAppends.ts";
import { sqliteMemorySide } from "../npc/memory/memoryVectorStore.ts";
import type { Embedder } from "../vectors/Embedder.ts";
import { requeueInterrupted } from "../lore/documents/documentStore.ts";
import type { LlmEngine } from "../llm/LlmEngine.ts";
import type { GenerationBackend } from "../generation/types.ts";
import { createGeneration } from "../generation/createGeneration.ts";
import { sqliteTokenCounts } from "../generation/remote/tokenCountStore.ts";
import { safeUrl } from "../generation/backendsConfig.ts";
import { RateLimiter } from "../ratelimit/RateLimiter.ts";
import { Metrics } from "../ops/metrics.ts";
import { countScanJobsByStatus } from "../scanner/scanJobStore.ts";
import { spentMicro } from "../credits/ledger.ts";
import { resolveModelPath } from "../llm/resolveModel.ts";
import { nativeInfo } from "../runtime/native.ts";
import { interactIdleSeconds, isInteractPath } from "./idleTimeouts.ts";
import { kvSnapshotOptions, llmReadiness } from "../llm/kv/kvConfig.ts";
import { warmKnownMinds } from "../npc/warmMinds.ts";
import { guardRequest } from "../http/requestGuard.ts";
import { releaseInteractionReservations } from "../credits/releaseInteractionReservations.ts";
import { npcFeature } from "../npc/npcFeature.ts";
import { behaviourFeature } from "../behaviour/behaviourFeature.ts";
import { loreFeature } from "../lore/loreFeature.ts";
import { scannerFeature } from "../scanner/scannerFeature.ts";
import { vectorsFeature } from "../vectors/vectorsFeature.ts";
import { creditsFeature } from "../credits/creditsFeature.ts";
import { rateLimitFeature } from "../ratelimit/rateLimitFeature.ts";
import { opsFeature } from "../ops/opsFeature.ts";
import { adminFeature } from "../admin/adminFeature.ts";
import { studioFeature } from "../studio/studioFeature.ts";
import { stateFeature } from "../state/stateFeature.ts";
import { eventsFeature } from "../events/eventsFeature.ts";
import { loreTestsFeature } from "../loretests/loreTestsFeature.ts";
import { scenesFeature } from "../scenes/scenesFeature.ts";
import { UsageLog } from "../ops/usageLog.ts";

export type { AppContext, ModelStatus };

/**
 * Every feature of the server, in mount order: its routes (the whole HTTP
 * surface) and its background jobs (registered in this order too).
 */
export const FEATURES: readonly Feature[] = [npcFeature, stateFeature, eventsFeature, scenesFeature, behaviourFeature, loreFeature, scannerFeature, vectorsFeature, creditsFeature, rateLimitFeature, opsFeature, adminFeature, loreTestsFeature, studioFeature];

async function loadModel(config: Config, log: Logger): Promise<{ llm: LlmEngine | null; status: ModelStatus }> {
  const path = resolveModelPath(config.modelsDir, config.model ?? undefined);
  if (!path) {
    const why = config.model ? `model '${config.model}' not found` : `no single GGUF model in ${config.modelsDir}`;
    log.warn("starting without a chat model: /v1/npc/interact will answer 503", { reason: why });
    return { llm: null, status: { state: "absent", path: null, error: why } };
  }
  try {
    const t0 = performance.now();
    // Imported only when there is a model to load: node-llama-cpp's modules are ~16 MB of resident
    // memory that a server generating remotely (or not at all) never needs.
    const { LlmEngine } = await import("../llm/LlmEngine.ts");
    const llm = await LlmEngine.load({
      modelPath: path,
      threads: config.threads,
      parallel: config.parallel,
      contextSize: config.contextSize,
      flashAttention: config.kvCacheType !== "f16" ? true : config.flashAttention === "auto" ? undefined : config.flashAttention === "on",
      kvCacheType: config.kvCacheType,
      kvSnapshots: kvSnapshotOptions(config),
    });
    log.info("model loaded", { path, ms: Math.round(performance.now() - t0), threads: config.threads, parallel: config.parallel });
    return { llm, status: { state: "loaded", path, error: null } };
  } catch (e) {
    const error = e instanceof Error ? e.message : String(e);
    log.error("model failed to load: /v1/npc/interact will answer 503", { path, error });
    return { llm: null, status: { state: "failed", path, error } };
  }
}

export interface AppOptions {
  clock?: Clock;
  logger?: Logger;
  /** an embedder to use instead of the configured one (tests) */
  embedder?: Embedder;
  /** false: start without loading a chat model (CLI-only uses, tests of other features) */
  loadModel?: boolean;
  /** what ends the memory append window (tests end it themselves; default a timer) */
  appendTimer?: AppendTimer;
}

/**
 * The composition root. Built at boot in order (config → SQLite → LanceDB →
 * scheduler → HTTP) and torn down in reverse by stop(). Routes, jobs and the
 * CLI all call the same services with the same context.
 */
export class App {
  readonly ctx: AppContext;
  readonly http: HttpApp;
  readonly scheduler: Scheduler;
  readonly limiter: RateLimiter;
  readonly metrics: Metrics;
  /** recent interactions' tokens and latency (the Studio's usage charts) */
  readonly usage = new UsageLog();
  private server: Server<unknown> | null = null;
  private stopped = false;
  private reembedding: Promise<void> | null = null;
  /** the embedder this app made (its threads end with the app); one a caller passed in stays the caller's */
  private ownEmbedder: Embedder | null = null;

  private constructor(
    readonly config: Config,
    readonly db: Db,
    readonly log: Logger,
    clock: Clock,
    vectors: VectorStore,
    model: { llm: LlmEngine | null; status: ModelStatus; generation: GenerationBackend | null },
  ) {
    this.ctx = { db, clock, config, log, vectors, llm: model.llm, generation: model.generation, modelStatus: model.status };
    this.limiter = new RateLimiter(clock);
    this.metrics = new Metrics({
      llmStats: () => this.ctx.llm?.stats() ?? null,
      backends: () => this.ctx.generation?.status() ?? [],
      scanJobsByState: () => countScanJobsByStatus(db),
      creditsSpentMicro: () => spentMicro(this.ctx),
    });
    this.scheduler = new Scheduler(log);
    // One object: what a test sets on app.ctx (e.g. modelStatus) every feature sees.
    const deps: FeatureDeps = Object.assign(this.ctx, {
      limiter: this.limiter,
      metrics: this.metrics,
      usage: this.usage,
      scheduler: this.scheduler,
      handle: (req: Request) => this.http.handle(req),
      readiness: () => this.readiness(),
    });
    for (const f of FEATURES) for (const job of f.jobs?.(deps) ?? []) this.scheduler.register(job);
    this.http = createHttpApp({
      log,
      features: FEATURES.flatMap((f) => f.routes?.(deps) ?? []),
      health: () => this.health(),
      onResponse: (method, route, status) => this.metrics.recordRequest(method, route, status),
    });
  }

  static async create(config: Config, opts: AppOptions = {}): Promise<App> {
    const log = opts.logger ?? createLogger(config.logLevel);
    mkdirSync(config.dataDir, { recursive: true });
    const paths = dataPaths(config);
    const db = openDatabase(paths.db);
    let made: Embedder | null = null;
    try {
      const embedder = opts.embedder ?? (made = await createEmbedder(config.embeddingModel, config.modelsDir, embedderOptions(config)));
      const vectors = await VectorStore.open(paths.lance, embedder, {
        vectorCacheMb: config.vectorCacheMb,
        vectorIndexMinChunks: config.vectorIndexMinChunks,
        memoryAppendWindowMs: config.memoryAppendWindowMs,
        memoryAppendRows: config.memoryAppendRows,
        appendTimer: opts.appendTimer,
      });
      vectors.memorySide = sqliteMemorySide(db);
      const model = await createGeneration(config, log, opts.loadModel === false ? null : () => loadModel(config, log), sqliteTokenCounts(db));
      const app = new App(config, db, log, opts.clock ?? systemClock, vectors, model);
      app.ownEmbedder = made;
      const requeued = requeueInterrupted(app.ctx);
      if (requeued) log.warn("documents left PROCESSING by an earlier run were re-queued", { count: requeued });
      const released = releaseInteractionReservations(app.ctx);
      if (released.count) log.warn("interaction reservations left open by an earlier run were released", released);
      if (vectors.embedderId !== embedder.id) app.startReembed(embedder);
      return app;
    } catch (e) {
      await made?.dispose?.();
      db.close();
      throw e;
    }
  }

  /** Switching embedder: re-embed in the background; retrieval answers from the old vectors meanwhile. */
  private startReembed(embedder: Embedder): void {
    this.log.info("embedder changed: re-embedding in the background", { from: this.ctx.vectors.embedderId, to: embedder.id });
    this.reembedding = this.ctx.vectors
      .reembedAll(embedder, (done, total) => this.log.debug("re-embedding", { done, total }))
      .then(() => this.log.info("re-embedding complete", { embedder: embedder.id }))
      .catch((e) => this.log.error("re-embedding failed", { err: String(e) }))
      .finally(() => (this.reembedding = null));
  }

  /** Boots everything in order and starts listening. */
  static async start(config: Config, opts: AppOptions = {}): Promise<App> {
    const app = await App.create(config, opts);
    app.scheduler.start();
    app.listen();
    // Minds' static prompts evaluated in the background (KV prefix snapshots): new players start warm.
    if (app.ctx.llm) warmKnownMinds(app.ctx, app.ctx.llm);
    return app;
  }

  health(): Record<string, unknown> {
    return {
      status: "ok",
      migrations: appliedMigrations(this.db).length,
      embedder: this.ctx.vectors.embedderId,
      model: this.ctx.modelStatus,
    };
  }

  /** Ready when storage is open, migrations applied and the model loaded or explicitly absent (not failed). */
  readiness(): { ready: boolean } & Record<string, unknown> {
    let storage = true;
    let migrations = 0;
    try {
      pingDatabase(this.db);
      migrations = appliedMigrations(this.db).length;
    } catch {
      storage = false; // closed (after stop) or broken
    }
    const model = this.ctx.modelStatus;
    const backends = this.ctx.generation?.status() ?? [];
    // a remote pool with every backend down is as unready as a local model that failed to load
    const generationDown = this.config.generation === "remote" && backends.every((b) => b.state === "down");
    const ready = !this.stopped && storage && model.state !== "failed" && !generationDown;
    const { source, extracted, extractReason, prepareMs } = nativeInfo();
    return {
      ready,
      storage,
      migrations,
      model,
      generation: { mode: this.config.generation, backends: backends.map((b) => ({ ...b, url: safeUrl(b.url) })) },
      embedder: this.ctx.vectors.embedderId,
      native: { source, extracted, extractReason, prepareMs },
      llm: llmReadiness(this.ctx.llm),
    };
  }

  /** In-process request handling (tests use this; no socket). */
  async handle(req: Request): Promise<Response> {
    // Path and body limits first (src/http/requestGuard.ts): nothing unbounded reaches the router.
    const guarded = await guardRequest(req, { bodyTimeoutMs: this.config.bodyTimeoutSeconds * 1000, log: this.log });
    return guarded instanceof Response ? guarded : this.http.handle(guarded);
  }

  listen(): Server<unknown> {
    const interactIdle = interactIdleSeconds(this.config);
    this.server = Bun.serve({
      port: this.config.port,
      hostname: this.config.host,
      idleTimeout: this.config.idleTimeoutSeconds,
      fetch: (req, server) => {
        if (req.method === "POST" && isInteractPath(req.url)) server.timeout(req, interactIdle);
        return this.handle(req);
      },
      maxRequestBodySize: 210 * 1024 * 1024,
      // Anything that escapes the handler still answers the spec's JSON shape (Bun's default is an HTML page).
      error: (e) => {
        this.log.error("unhandled error outside the router", { err: e instanceof Error ? (e.stack ?? e.message) : String(e) });
        return new Response(JSON.stringify({ error: "Internal server error" }), { status: 500, headers: { "content-type": "application/json; charset=utf-8" } });
      },
    });
    this.log.info("listening", { url: `http://${this.config.host}:${this.server.port}` });
    return this.server;
  }

  /** Bun's stop(false) closes the listener and resolves once in-flight requests are answered; past the timeout it cuts them. */
  private async drain(server: Server<unknown>, timeoutMs: number): Promise<void> {
    const inFlight = server.pendingRequests;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = await Promise.race([
      server.stop(false).then(() => false),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(true), timeoutMs))),
    ]);
    clearTimeout(timer);
    if (timedOut) {
      this.log.warn("requests still running at the drain timeout: closing their connections", { pending: server.pendingRequests, timeoutMs });
      await server.stop(true);
    } else if (inFlight > 0) {
      this.log.info("in-flight requests finished", { count: inFlight });
    }
  }

  get port(): number | undefined {
    return this.server?.port;
  }

  /**
   * Reverse order of boot: stop accepting, let in-flight requests finish
   * (bounded: a generation's own timeout plus a margin), finish the running
   * job step, dispose the model, close the stores.
   */
  async stop(opts: { drainTimeoutMs?: number } = {}): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.server) await this.drain(this.server, opts.drainTimeoutMs ?? this.config.generationTimeoutMs + 5_000);
    await this.scheduler.stop();
    if (this.reembedding) await this.reembedding;
    await (this.ctx.generation ?? this.ctx.llm)?.dispose();
    await this.ctx.vectors.close();
    await this.ownEmbedder?.dispose?.();
    this.db.close();
  }
}
