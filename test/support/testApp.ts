import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, type AppOptions } from "../../src/app/App.ts";
import { loadConfig, type Config } from "../../src/config/config.ts";
import { ManualClock } from "../../src/core/clock.ts";
import { silentLogger } from "../../src/ops/logger.ts";

export function tempDir(prefix = "lorehold-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export interface TestApp {
  app: App;
  dir: string;
  clock: ManualClock;
  /** JSON request in process: returns status, parsed body and headers */
  call(method: string, path: string, opts?: { key?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string> }): Promise<{
    status: number;
    body: any;
    headers: Headers;
  }>;
  close(): Promise<void>;
}

export function testConfig(dir: string, flags: Partial<Config> = {}): Config {
  return loadConfig({ cwd: dir, env: {}, flags: { dataDir: join(dir, "data"), modelsDir: join(dir, "models"), logLevel: "silent", threads: 2, ...flags } });
}

export async function createTestApp(flags: Partial<Config> = {}, opts: Omit<AppOptions, "clock"> = {}): Promise<TestApp> {
  const dir = tempDir();
  const clock = new ManualClock(new Date());
  const app = await App.create(testConfig(dir, flags), { clock, logger: silentLogger, ...opts });
  return {
    app,
    dir,
    clock,
    async call(method, path, opts = {}) {
      const headers: Record<string, string> = { ...(opts.headers ?? {}) };
      if (opts.key) headers.authorization = `Bearer ${opts.key}`;
      let body: string | undefined;
      if (opts.rawBody !== undefined) body = opts.rawBody;
      else if (opts.body !== undefined) body = JSON.stringify(opts.body);
      if (body !== undefined && !headers["content-type"]) headers["content-type"] = "application/json";
      const res = await app.handle(new Request(`http://localhost${path}`, { method, headers, body }));
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {}
      return { status: res.status, body: parsed, headers: res.headers };
    },
    async close() {
      await app.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
