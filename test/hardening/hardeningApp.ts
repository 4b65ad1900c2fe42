import { rmSync } from "node:fs";
import { App } from "../../src/app/App.ts";
import type { Config } from "../../src/config/config.ts";
import { ManualClock } from "../../src/core/clock.ts";
import { silentLogger } from "../../src/ops/logger.ts";
import { tempDir, testConfig } from "../support/testApp.ts";
import { buildWorld, type World } from "../support/world.ts";

export const ADMIN_TOKEN = "hardening-admin-token";

/** A listening App (no chat model) with one world, and every route the router holds. */
export async function startHardeningApp(flags: Partial<Config> = {}) {
  const dir = tempDir("lorehold-hardening-");
  const app = await App.start(testConfig(dir, { port: 0, adminToken: ADMIN_TOKEN, ...flags }), {
    logger: silentLogger,
    loadModel: false,
    clock: new ManualClock(new Date()),
  });
  const w: World = buildWorld(app.ctx as any, "Thornhaven");
  const routes = ((app.http as any).routes as Array<{ method: string; path: string }>)
    .filter((r) => !r.path.startsWith("/swagger") && r.method !== "ALL")
    .map((r) => ({ method: r.method, path: r.path }));
  return {
    app,
    w,
    routes,
    port: app.port!,
    async close() {
      await app.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The credential a route takes. */
export function authFor(path: string, w: World): string {
  if (path.startsWith("/admin/")) return `Bearer ${ADMIN_TOKEN}`;
  if (path === "/v1/npc/interact") return `Bearer ${w.keys.server}`;
  return `Bearer ${w.keys.editor}`;
}

/** A route's path with its parameters filled: the world's project, ids that name nothing (nothing is touched). */
export function concretePath(path: string, w: World): string {
  return path
    .replace(":projectId", w.projectId)
    .replace(":name", "no-such-job")
    .replace(/:(\w+)/g, (_, p) => `missing_${p}`);
}
