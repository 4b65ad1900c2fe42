import { rmSync } from "node:fs";
import { App } from "../../src/app/App.ts";
import { ManualClock } from "../../src/core/clock.ts";
import { silentLogger } from "../../src/ops/logger.ts";
import { tempDir, testConfig } from "../support/testApp.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { buildWorld, type World } from "../support/world.ts";

export interface LiveServer {
  app: App;
  clock: ManualClock;
  /** http://127.0.0.1:<port> */
  baseUrl: string;
  world: World;
  close(): Promise<void>;
}

/** A free TCP port on 127.0.0.1 (the OS picks one, then it is released). */
function freePort(): number {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = s.port!;
  s.stop(true);
  return port;
}

/**
 * A real Lorehold server listening on a socket (clients' tests need HTTP,
 * SSE and timeouts for real), with the tiny random-weight GGUF and the test
 * world (keys, minds, documents), indexed. `model: false` starts it without
 * a chat model (the scanner then extracts by heuristics alone, in seconds). The clock is manual so rate
 * limits can be stepped through.
 */
export async function startLiveServer(opts: { model?: boolean } = {}): Promise<LiveServer> {
  const dir = tempDir("lorehold-sdk-");
  const port = freePort();
  const clock = new ManualClock(new Date());
  // The action gate off: the random-weight model reads acting at ~0.3, never the gate's 0.9, and these tests are of
  // the wire (a turn's actions, their results sent back), not of the model's judgement (test/llm/tailGate.test.ts).
  const config = testConfig(dir, { port, host: "127.0.0.1", ...(opts.model === false ? {} : { model: ensureTinyModel(undefined, { nCtx: 2048 }) }), parallel: 2, contextSize: 2048, maxReplyTokens: 12, actionGate: "off" });
  const app = await App.start(config, { clock, logger: silentLogger });
  const world = buildWorld(app.ctx as never, "Thornhaven", { index: "none" });
  await app.scheduler.trigger("indexer");
  return {
    app,
    clock,
    baseUrl: `http://127.0.0.1:${port}`,
    world,
    async close() {
      await app.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
