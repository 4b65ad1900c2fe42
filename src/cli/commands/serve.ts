import { App } from "../../app/App.ts";
import { createLogger } from "../../ops/logger.ts";
import { nativeInfo } from "../../runtime/native.ts";
import type { Command } from "../cliTypes.ts";

/** Resolves on SIGINT/SIGTERM, then stops the app (drain, jobs, model, stores). */
export async function waitForShutdown(app: App): Promise<void> {
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      app.log.info("shutting down", { signal });
      resolve();
    };
    process.once("SIGINT", () => stop("SIGINT"));
    process.once("SIGTERM", () => stop("SIGTERM"));
  });
  await app.stop();
}

/** Runs the server until SIGINT/SIGTERM, then drains and exits 0. */
export const serveCommand: Command = {
  name: "serve",
  usage: "lorehold serve [--port N] [--host H] [--model M] [--models-dir DIR] [--data-dir DIR]",
  summary: "run the HTTP server",
  async run(c) {
    const log = createLogger(c.config.logLevel);
    // Where llama.cpp / onnxruntime came from (and whether this start extracted them): first thing to check on a new box.
    log.info("native libraries", { ...nativeInfo() });
    const app = await App.start(c.config, { logger: log });
    log.info("ready", { startupMs: Math.round(performance.now()), model: app.ctx.modelStatus.state });
    await waitForShutdown(app);
    return "long-running" as const;
  },
};
