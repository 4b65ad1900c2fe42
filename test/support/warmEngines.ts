import { afterAll } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LlmEngine } from "../../src/llm/LlmEngine.ts";
import { ensureTinyModel } from "./tinyGguf.ts";

/**
 * Engines on the suite's tiny model with KV snapshots in a scratch folder and warm-ups in steps of 64 tokens, for
 * tests of mind warm-ups; disposed and their folders removed after the file's tests.
 */
export function warmEngines(label: string): (parallel: number) => Promise<LlmEngine> {
  const roots: string[] = [];
  const engines: LlmEngine[] = [];
  afterAll(async () => {
    for (const e of engines) await e.dispose().catch(() => {});
    for (const r of roots) rmSync(r, { recursive: true, force: true });
  });
  return async (parallel) => {
    const dir = mkdtempSync(join(tmpdir(), `lorehold-${label}-`));
    roots.push(dir);
    const engine = await LlmEngine.load({
      modelPath: ensureTinyModel(undefined, { nCtx: 2048 }),
      threads: 1,
      parallel,
      contextSize: 2048,
      // The tiny model evaluates faster than a restore's fixed cost: restore whenever it saves tokens.
      kvSnapshots: { dir, budgetBytes: 1 << 30, restore: "always", warmChunkTokens: 64 },
    });
    engines.push(engine);
    return engine;
  };
}
