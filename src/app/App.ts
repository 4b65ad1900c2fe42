import { mkdirSync } from "node:fs";
import type { Server } from "bun";
import { dataPaths, type Config } from "../config/config.ts";
import { systemClock, type Clock } from "../core/clock.ts";
import type { ServiceContext } from "../core/context.ts";
import { openDatabase, type Db } from "../db/openDatabase.ts";
import { appliedMigrations } from "../db/migrate.ts";
import { createHttpApp, type HttpApp, type HttpFeature } from "../http/createHttpApp.ts";
import { createLogger, type Logger } from "../ops/logger.ts";
import { loreRoutes } from "../lore/loreRoutes.ts";
import { adminRoutes } from "../admin/adminRoutes.ts";

export interface AppOptions {
  clock?: Clock;
  logger?: Logger;
}

/**
 * The composition root. Built at boot in order (config → SQLite → HTTP) and
 * torn down in reverse by stop(). Routes, jobs and the CLI all get the same
 * ServiceContext.
 */
export class App {
  readonly ctx: ServiceContext;
  readonly http: HttpApp;
  private server: Server<unknown> | null = null;
  private stopped = false;

  private constructor(
    readonly config: Config,
    readonly db: Db,
    readonly log: Logger,
    clock: Clock,
  ) {
    this.ctx = { db, clock };
    this.http = createHttpApp({ log, features: this.features(), health: () => this.health() });
  }

  static create(config: Config, opts: AppOptions = {}): App {
    const log = opts.logger ?? createLogger(config.logLevel);
    mkdirSync(config.dataDir, { recursive: true });
    const db = openDatabase(dataPaths(config).db);
    return new App(config, db, log, opts.clock ?? systemClock);
  }

  /** Boots everything in order and starts listening. */
  static async start(config: Config, opts: AppOptions = {}): Promise<App> {
    const app = App.create(config, opts);
    app.listen();
    return app;
  }

  private features(): HttpFeature[] {
    return [
      { mount: "v1", plugin: loreRoutes(this.ctx) },
      { mount: "root", plugin: adminRoutes(this.ctx, this.config) },
    ];
  }

  health(): Record<string, unknown> {
    return { status: "ok", migrations: appliedMigrations(this.db).length, model: null };
  }

  /** In-process request handling (tests and the preview use this; no socket). */
  handle(req: Request): Promise<Response> {
    return this.http.handle(req);
  }

  listen(): Server<unknown> {
    this.server = Bun.serve({
      port: this.config.port,
      hostname: this.config.host,
      fetch: (req) => this.http.handle(req),
      maxRequestBodySize: 210 * 1024 * 1024,
    });
    this.log.info("listening", { url: `http://${this.config.host}:${this.server.port}` });
    return this.server;
  }

  get port(): number | undefined {
    return this.server?.port;
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.server) await this.server.stop(false);
    this.db.close();
  }
}
