import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { importPack, parsePackText } from "../../src/packs/importPack.ts";
import type { SuiteText } from "../../src/loretests/loadSuites.ts";

export const EXAMPLES = resolve(import.meta.dir, "../../examples");
export const DEMO_SUITE = join(EXAMPLES, "thornhaven.test.yaml");

export function demoSuite(): SuiteText {
  return { file: "thornhaven.test.yaml", text: readFileSync(DEMO_SUITE, "utf8") };
}

/**
 * The demo world on a tiny random-weight model (test/support/tinyGguf.ts): what it says is noise, what it
 * was given is the production path's, so structural expectations (knowsFrom, noLeakOf) hold whatever the
 * weights. Indexed into real LanceDB with the built-in hashing embedder. Replies are 4 tokens: the reply half of
 * noLeakOf (the secret judge: two words only the document has) could otherwise be met by chance, since the tiny
 * vocabulary holds common words ("night", "guard", "first") that some documents use.
 */
export async function demoApp(flags: Record<string, unknown> = {}): Promise<{ t: TestApp; projectId: string; ids: Record<string, Record<string, string>> }> {
  const model = ensureTinyModel(undefined, { nCtx: 8192 });
  const t = await createTestApp({ model, parallel: 2, contextSize: 8192, maxReplyTokens: 4, threads: 1, ...flags });
  const pack = parsePackText(readFileSync(join(EXAMPLES, "thornhaven.yaml"), "utf8"), "thornhaven.yaml");
  const r = importPack(t.app.ctx, pack);
  await t.app.scheduler.trigger("indexer");
  return { t, projectId: r.projectId, ids: r.ids as never };
}
