import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { App } from "../../src/app/App.ts";
import { silentLogger } from "../../src/ops/logger.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { tempDir, testConfig } from "../support/testApp.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function appWith(flags: Parameters<typeof testConfig>[1], opts: { loadModel?: boolean; setup?: (dir: string) => void } = {}) {
  const dir = tempDir("lorehold-readyz-");
  dirs.push(dir);
  opts.setup?.(dir);
  return App.create(testConfig(dir, flags), { logger: silentLogger, loadModel: opts.loadModel });
}

async function get(app: App, path: string) {
  const res = await app.handle(new Request(`http://localhost${path}`));
  return { status: res.status, body: (await res.json()) as any };
}

const NATIVE_FROM_SOURCE = { source: "node_modules", extracted: false, extractReason: null, prepareMs: 0 };

describe("/readyz", () => {
  test("model explicitly absent (loadModel: false): ready, 200; /healthz says the same", async () => {
    const app = await appWith({}, { loadModel: false });
    try {
      const r = await get(app, "/readyz");
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ ready: true, storage: true, model: { state: "absent", path: null }, embedder: "hashing-384-v1", native: NATIVE_FROM_SOURCE });
      expect(r.body.migrations).toBeGreaterThanOrEqual(1);
      const h = await get(app, "/healthz");
      expect(h.status).toBe(200);
      expect(h.body).toMatchObject({ status: "ok", model: { state: "absent" } });
    } finally {
      await app.stop();
    }
  });

  test("no GGUF in modelsDir: absent, still ready (interact answers 503)", async () => {
    const app = await appWith({});
    try {
      const r = await get(app, "/readyz");
      expect(r.status).toBe(200);
      expect(r.body.model.state).toBe("absent");
      expect(r.body.model.error).toContain("no single GGUF model in");
    } finally {
      await app.stop();
    }
  });

  test("a model that fails to load: failed, 503 with the reason", async () => {
    const app = await appWith(
      {},
      {
        setup: (dir) => {
          // a model copied by hand that got cut short
          mkdirSync(join(dir, "models"));
          writeFileSync(join(dir, "models", "broken.gguf"), readFileSync(ensureTinyModel()).subarray(0, 5000));
        },
      },
    );
    try {
      const r = await get(app, "/readyz");
      expect(r.status).toBe(503);
      expect(r.body).toMatchObject({ ready: false, storage: true, model: { state: "failed", path: expect.stringContaining("broken.gguf") } });
      expect(r.body.model.error).toBeTruthy();
      expect((await get(app, "/healthz")).status).toBe(200); // alive, just not ready
    } finally {
      await app.stop();
    }
  });

  test("the tiny GGUF loaded: 200, state loaded; after stop() readiness is false", async () => {
    const model = ensureTinyModel();
    const app = await appWith({ model });
    const r = await get(app, "/readyz");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ready: true, model: { state: "loaded", path: model, error: null }, native: NATIVE_FROM_SOURCE });
    await app.stop();
    expect(app.readiness().ready).toBe(false);
  });
});
