import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { importPack } from "../../src/packs/importPack.ts";
import { prepareTurn } from "../../src/npc/prepareTurn.ts";
import { validateInteract } from "../../src/npc/validateInteract.ts";
import { turnGuard } from "../../src/npc/replies/turnGuard.ts";
import { exampleCopy } from "../../src/npc/replies/detectors.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";

// The guard's context for a real prepared turn: the example exchange's lines, and the mind's own texts (persona,
// shared lore, the turn's notes), whose words are the mind's to say even where the example has them too.
setDefaultTimeout(120_000);

const PACK = {
  project: { name: "Wells" },
  tags: [{ name: "crossroads" }, { name: "quay" }],
  minds: [
    { key: "digger", entityName: "Tam Rudd", personality: "Slow and kind.", knowledgeTags: ["crossroads"] },
    { key: "ferrier", entityName: "Lise Kell", personality: "Quick and sharp.", knowledgeTags: ["quay"] },
  ],
  documents: [
    { key: "well", name: "The Crossroads", tags: ["crossroads"], content: "The old well at the crossroads has been dry since the drought." },
    { key: "quay", name: "The Quay", tags: ["quay"], content: "The ferry leaves the quay at every high water." },
  ],
};

let t: TestApp;
let projectId: string;
let minds: Record<string, string>;
beforeAll(async () => {
  t = await createTestApp({ model: ensureTinyModel(), embeddingModel: "hashing", parallel: 1, contextSize: 1024, maxReplyTokens: 8, threads: 1 });
  const r = importPack(t.app.ctx as any, PACK as any, {});
  projectId = r.projectId;
  minds = (r.ids as any).minds;
  await t.app.scheduler.trigger("indexer");
}, 60_000);
afterAll(() => t.close());

const contextOf = async (mind: string, text: string) =>
  turnGuard(await prepareTurn(t.app.ctx, projectId, validateInteract({ text, entityMindId: minds[mind], playerId: "p" })), text).context;

describe("exampleCopy on a prepared turn", () => {
  test("the example's words are a copy for a mind that knows nothing of them, the mind's own for one that does", async () => {
    const ferrier = await contextOf("ferrier", "Who runs the ferry?");
    expect(ferrier.example?.lines.length).toBeGreaterThan(0);
    expect(exampleCopy("The old well.", ferrier)).not.toBeNull();
    const digger = await contextOf("digger", "What is at the crossroads?");
    expect(exampleCopy("The old well.", digger)).toBeNull();
    // its lore holds "the old well", not the example's answer
    expect(exampleCopy("Forty feet, give or take.", digger)).not.toBeNull();
  });
});
