import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createApiKey } from "../../src/auth/apiKeys.ts";
import { importPack, parsePackText } from "../../src/packs/importPack.ts";
import type { Config } from "../../src/config/config.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { REAL_THREADS, type RealFixtures } from "./realFixtures.ts";

export interface RealWorld {
  t: TestApp;
  projectId: string;
  serverKey: string;
  editorKey: string;
  /** mind key in the pack → id */
  minds: Record<string, string>;
  interact(mind: string, playerId: string, text: string): Promise<{ status: number; body: any }>;
}

/**
 * A test app on a real GGUF with a world pack imported (examples/thornhaven.yaml by default) and
 * indexed: what `npm start` serves (on REAL_THREADS threads).
 */
export async function realWorld(fx: RealFixtures, model: string, flags: Partial<Config> = {}, pack = "examples/thornhaven.yaml"): Promise<RealWorld> {
  const t = await createTestApp({ model, modelsDir: fx.modelsDir, threads: REAL_THREADS, parallel: 1, contextSize: 2048, generationTimeoutMs: 600_000, ...flags });
  const text = readFileSync(join(import.meta.dir, "..", "..", pack), "utf8");
  const r = importPack(t.app.ctx as any, parsePackText(text, pack), { monthlyCredits: 1_000_000 });
  await t.app.scheduler.trigger("indexer");
  const serverKey = createApiKey(t.app.ctx as any, { projectId: r.projectId, type: "server" }).key;
  const editorKey = createApiKey(t.app.ctx as any, { projectId: r.projectId, type: "editor" }).key;
  return {
    t,
    projectId: r.projectId,
    serverKey,
    editorKey,
    minds: r.ids.minds,
    interact: (mind, playerId, text) =>
      t.call("POST", "/v1/npc/interact", { key: serverKey, body: { text, entityMindId: r.ids.minds[mind], playerId } }),
  };
}
