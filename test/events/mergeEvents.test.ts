import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { App } from "../../src/app/App.ts";
import { ManualClock } from "../../src/core/clock.ts";
import { silentLogger } from "../../src/ops/logger.ts";
import { recordEvents } from "../../src/events/recordEvents.ts";
import { spreadGossip } from "../../src/events/gossip.ts";
import { EVENT_MERGE_WINDOW_MS } from "../../src/events/mergeWorldMemory.ts";
import { rankWorldMemories } from "../../src/events/worldMemories.ts";
import { importPack } from "../../src/packs/importPack.ts";
import { tempDir, testConfig } from "../support/testApp.ts";
import { HashingEmbedder } from "../../src/vectors/HashingEmbedder.ts";

/** A happening the game reports twice within minutes is one memory of each mind that saw it, not two. */

let dir: string;
let app: App;
let clock: ManualClock;
let projectId: string;
let m: Record<string, string>;

const record = async (events: Record<string, unknown>[]) => (await recordEvents(app.ctx, projectId, events as any, events.length > 1)).events;
const knows = (mind: string) => rankWorldMemories(app.ctx, { projectId, mindId: m[mind], query: "", limit: 50 });
const villager = (key: string) => ({ key, entityName: key, personality: "A villager.", knowledgeTags: ["village"] });

beforeAll(async () => {
  dir = tempDir();
  clock = new ManualClock(new Date("2026-03-01T08:00:00.000Z"));
  app = await App.create(testConfig(dir, { embeddingModel: "hashing" }), { clock, logger: silentLogger, loadModel: false, embedder: new HashingEmbedder() });
  const r = importPack(app.ctx, { project: { name: "Bells" }, tags: [{ name: "village" }], minds: [villager("anna"), villager("bram")], relationships: [{ from: "anna", to: "bram", type: "FRIEND" }] });
  projectId = r.projectId;
  m = r.ids.minds;
});
afterAll(async () => {
  await app.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("near-duplicate events merge into one world memory per mind", () => {
  test("the same words again minutes later (case and punctuation aside): one memory, the higher importance; both events stay in the log", async () => {
    const [first] = await record([{ type: "bell", description: "The temple bell rang at noon.", witnesses: [m.anna], importance: 3 }]);
    clock.advance(2 * 60_000);
    const [second] = await record([{ type: "bell", description: "the temple bell rang at noon", witnesses: [m.anna, m.bram], importance: 7 }]);
    expect(second.id).not.toBe(first.id);
    const anna = knows("anna");
    expect(anna).toHaveLength(1);
    expect(anna[0]).toMatchObject({ event_id: first.id, importance: 7 });
    // Bram saw only the second report: his own memory of it
    expect(knows("bram")).toMatchObject([{ event_id: second.id, importance: 7 }]);
    // a lower repeat does not lower it
    clock.advance(60_000);
    await record([{ type: "bell", description: "The temple bell rang at noon!", witnesses: [m.anna], importance: 1 }]);
    expect(knows("anna")).toMatchObject([{ importance: 7 }]);
  });

  test("repeats inside one batch merge too; another type, other words or a later time are new memories", async () => {
    clock.advance(EVENT_MERGE_WINDOW_MS + 60_000);
    const before = knows("anna").length;
    await record([
      { type: "cart", description: "A cart lost a wheel", witnesses: [m.anna] },
      { type: "cart", description: "A cart lost a wheel.", witnesses: [m.anna] },
      { type: "accident", description: "A cart lost a wheel", witnesses: [m.anna] },
      { type: "cart", description: "A cart lost two wheels", witnesses: [m.anna] },
    ]);
    expect(knows("anna").length).toBe(before + 3);
    clock.advance(EVENT_MERGE_WINDOW_MS + 1);
    await record([{ type: "bell", description: "The temple bell rang at noon.", witnesses: [m.anna] }]);
    expect(knows("anna").filter((k) => k.type === "bell")).toHaveLength(2);
  });

  test("events about a player are the player's memories: never merged here", async () => {
    const n = () => app.db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM memories WHERE player_id = ?").get("p1")!.n;
    await record([{ type: "greet", description: "The player waved", witnesses: [m.bram], playerId: "p1" }]);
    await record([{ type: "greet", description: "The player waved", witnesses: [m.bram], playerId: "p1" }]);
    expect(n()).toBe(2);
  });

  test("gossip tells nobody a happening they know under another report", async () => {
    clock.advance(EVENT_MERGE_WINDOW_MS + 60_000);
    // Anna saw the first report, Bram only the repeat: each knows the happening once
    await record([{ type: "omen", description: "A white stag crossed the road", witnesses: [m.anna], importance: 9 }]);
    clock.advance(60_000);
    await record([{ type: "omen", description: "A white stag crossed the road.", witnesses: [m.bram], importance: 9 }]);
    for (let i = 0; i < 4; i++) {
      await spreadGossip(app.ctx);
      clock.advance(120 * 60_000);
    }
    expect(knows("anna").filter((k) => k.type === "omen")).toHaveLength(1);
    expect(knows("bram").filter((k) => k.type === "omen")).toHaveLength(1);
    // a different happening between the same friends still travels
    await record([{ type: "omen", description: "A black stag crossed the road", witnesses: [m.anna], importance: 9 }]);
    for (let i = 0; i < 2; i++) {
      await spreadGossip(app.ctx);
      clock.advance(120 * 60_000);
    }
    expect(knows("bram").filter((k) => k.type === "omen").map((k) => k.hop).sort()).toEqual([0, 1]);
  });
});
