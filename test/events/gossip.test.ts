import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { App } from "../../src/app/App.ts";
import { ManualClock } from "../../src/core/clock.ts";
import { silentLogger } from "../../src/ops/logger.ts";
import { createProject } from "../../src/projects/projectService.ts";
import { createApiKey } from "../../src/auth/apiKeys.ts";
import { createTag } from "../../src/lore/tags/writeTags.ts";
import { createMind } from "../../src/lore/minds/writeMinds.ts";
import { createRelationship } from "../../src/lore/relationships/writeRelationships.ts";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import { spreadGossip } from "../../src/events/gossip.ts";
import { recordEvents } from "../../src/events/recordEvents.ts";
import { setGossipLevel, whoKnows } from "../../src/events/eventAdmin.ts";
import { rankWorldMemories } from "../../src/events/worldMemories.ts";
import { tempDir, testConfig } from "../support/testApp.ts";
import { HashingEmbedder } from "../../src/vectors/HashingEmbedder.ts";

/**
 * Gossip over a controlled clock: hop delays (the teller's level), fading importance, attribution, secrets,
 * enemies and silent minds, and a restart in the middle of a propagation.
 *
 * The village: Anna —FRIEND— Bram —FRIEND— Cora —FRIEND— Dirk, and Anna —ENEMY— Egon, Bram —FAMILY— Fern (silent).
 */

const MIN = 60_000;
let dir: string;
let app: App;
let clock: ManualClock;
let projectId: string;
const m: Record<string, string> = {};

async function open(): Promise<App> {
  return App.create(testConfig(dir, { embeddingModel: "hashing" }), { clock, logger: silentLogger, loadModel: false, embedder: new HashingEmbedder() });
}

function village(a: App, name: string): { projectId: string; minds: Record<string, string> } {
  const ctx = a.ctx;
  const p = createProject(ctx, { name });
  createApiKey(ctx, { projectId: p.id, type: "server" });
  createTag(ctx, p.id, { name: "village" });
  const minds: Record<string, string> = {};
  for (const n of ["Anna", "Bram", "Cora", "Dirk", "Egon", "Fern"]) minds[n] = createMind(ctx, p.id, { key: n.toLowerCase(), entityName: n, personality: "A villager.", knowledgeTags: ["village"] }).id;
  const rel = (from: string, to: string, type: string) => createRelationship(ctx, p.id, { fromEntityId: minds[from], toEntityId: minds[to], type });
  rel("Anna", "Bram", "FRIEND");
  rel("Cora", "Bram", "FRIEND"); // the other direction: talk goes both ways
  rel("Cora", "Dirk", "FRIEND");
  rel("Anna", "Egon", "ENEMY");
  rel("Bram", "Fern", "FAMILY");
  setGossipLevel(ctx, p.id, minds.Fern, { level: "silent" });
  return { projectId: p.id, minds };
}

const knows = (a: App, pid: string, mind: string) => rankWorldMemories(a.ctx, { projectId: pid, mindId: mind, query: "", limit: 50 });
const event = async (a: App, pid: string, body: Record<string, unknown>) => (await recordEvents(a.ctx, pid, [{ type: "news", description: "x", ...body } as any], false)).events[0].id;

beforeAll(async () => {
  dir = tempDir();
  clock = new ManualClock(new Date("2026-03-01T08:00:00.000Z"));
  app = await open();
  const v = village(app, "Village");
  projectId = v.projectId;
  Object.assign(m, v.minds);
});
afterAll(async () => {
  await app.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("a story travels along friendships", () => {
  let id: string;
  test("hop 1: Bram hears it from Anna one hop's delay (Anna: normal, 60 min) after she saw it, weaker", async () => {
    id = await event(app, projectId, { description: "The mill wheel cracked", witnesses: [m.Anna], importance: 8 });
    await spreadGossip(app.ctx);
    // told, but not yet known: the story is on its way
    expect(knows(app, projectId, m.Bram)).toHaveLength(0);
    clock.advance(59 * MIN);
    expect(knows(app, projectId, m.Bram)).toHaveLength(0);
    clock.advance(1 * MIN);
    const bram = knows(app, projectId, m.Bram);
    expect(bram).toHaveLength(1);
    expect(bram[0]).toMatchObject({ hop: 1, told_by_name: "Anna", importance: 6 }); // floor(8 × 1 × 0.8)
  });

  test("hop 2 runs only once Bram knows it: Cora hears it from Bram, weaker again; then it dies out", async () => {
    await spreadGossip(app.ctx);
    clock.advance(60 * MIN);
    await spreadGossip(app.ctx);
    const cora = knows(app, projectId, m.Cora);
    expect(cora).toHaveLength(1);
    expect(cora[0]).toMatchObject({ hop: 2, told_by_name: "Bram", importance: 4 }); // floor(6 × 0.8)
    // Cora (normal, threshold 5) keeps an importance-4 story to herself
    clock.advance(600 * MIN);
    await spreadGossip(app.ctx);
    expect(knows(app, projectId, m.Dirk)).toHaveLength(0);
  });

  test("enemies tell each other nothing; a silent mind hears but never tells", async () => {
    expect(knows(app, projectId, m.Egon)).toHaveLength(0);
    expect(knows(app, projectId, m.Fern)).toHaveLength(1);
    const fernFirst = await event(app, projectId, { description: "Fern found a ring", witnesses: [m.Fern], importance: 10 });
    clock.advance(600 * MIN);
    await spreadGossip(app.ctx);
    expect(whoKnows(app.ctx, projectId, fernFirst).knowers.map((k) => k.name)).toEqual(["Fern"]);
  });

  test("who knows: every knower with the path of tellers from the witness", () => {
    const w = whoKnows(app.ctx, projectId, id);
    expect(w.knowers.map((k) => `${k.name}:${k.hop}:${k.path.length}`).sort()).toEqual(["Anna:0:1", "Bram:1:2", "Cora:2:3", "Fern:2:3"]);
    const cora = w.knowers.find((k) => k.name === "Cora")!;
    expect(cora.path).toEqual([m.Anna, m.Bram, m.Cora]);
    expect(cora.knowsNow).toBe(true);
  });

  test("a secret event never spreads, however big", async () => {
    const s = await event(app, projectId, { description: "Anna hides gold under the floor", witnesses: [m.Anna], importance: 10, secret: true });
    for (let i = 0; i < 5; i++) {
      clock.advance(120 * MIN);
      await spreadGossip(app.ctx);
    }
    expect(whoKnows(app.ctx, projectId, s).knowers.map((k) => k.name)).toEqual(["Anna"]);
  });

  test("a town crier spreads even small news, and fast (5 min a hop)", async () => {
    setGossipLevel(app.ctx, projectId, m.Cora, { level: "town-crier" });
    const small = await event(app, projectId, { description: "Cora's cat had kittens", witnesses: [m.Cora], importance: 3 });
    await spreadGossip(app.ctx);
    clock.advance(5 * MIN);
    const heard = knows(app, projectId, m.Dirk).find((k) => k.event_id === small);
    expect(heard).toMatchObject({ hop: 1, told_by_name: "Cora", importance: 2 });
  });
});

describe("hearsay about a player", () => {
  test("becomes that player's memory with the hearer once it arrives, attributed; erased with the player", async () => {
    const v = village(app, "Hearsay");
    const { listMemories, erasePlayer } = await import("../../src/npc/memory/memoryAdmin.ts");
    const e = await event(app, v.projectId, { type: "theft", description: "the player stole a loaf from Anna's stall", witnesses: [v.minds.Anna], playerId: "thief", importance: 8 });
    const texts = () => listMemories(app.ctx, v.projectId, "thief").map((x) => `${Object.entries(v.minds).find(([, id]) => id === x.entityMindId)![0]}: ${x.text}`).sort();
    expect(texts()).toEqual(["Anna: the player stole a loaf from Anna's stall"]);
    await spreadGossip(app.ctx);
    expect(texts()).toHaveLength(1); // on its way: not Bram's memory before it arrives
    clock.advance(60 * MIN);
    await spreadGossip(app.ctx);
    expect(texts()).toEqual(["Anna: the player stole a loaf from Anna's stall", "Bram: Anna told you: the player stole a loaf from Anna's stall"]);
    // never another player's, never a world memory of anyone
    expect(listMemories(app.ctx, v.projectId, "someone-else")).toEqual([]);
    expect(knows(app, v.projectId, v.minds.Bram)).toEqual([]);
    // who knows it now, and who is about to (Cora and Fern hear it from Bram an hour after he did)
    expect(whoKnows(app.ctx, v.projectId, e).knowers.map((k) => `${k.name}:${k.knowsNow}`).sort()).toEqual(["Anna:true", "Bram:true", "Cora:false", "Fern:false"]);
    await erasePlayer(app.ctx, v.projectId, "thief");
    expect(listMemories(app.ctx, v.projectId, "thief")).toEqual([]);
    // nothing left to travel: later ticks deliver nothing to the erased player
    clock.advance(600 * MIN);
    await spreadGossip(app.ctx);
    expect(listMemories(app.ctx, v.projectId, "thief")).toEqual([]);
    expect(() => whoKnows(app.ctx, v.projectId, e)).toThrow("Event not found");
  });
});

describe("a restart in the middle of a propagation", () => {
  test("loses no hop and tells nobody twice: the same knowers as an uninterrupted run", async () => {
    // Two identical villages: one runs straight through, the other restarts the server between hops.
    const straight = village(app, "Straight");
    const restarted = village(app, "Restarted");
    const body = { description: "A dragon was seen over the hills", importance: 10 };
    const e1 = await event(app, straight.projectId, { ...body, witnesses: [straight.minds.Anna] });
    const e2 = await event(app, restarted.projectId, { ...body, witnesses: [restarted.minds.Anna] });
    const steps = 8;
    for (let i = 0; i < steps; i++) {
      // the restarted village's server goes down and comes back (the same data dir) at every other step
      if (i % 2 === 1) {
        await app.stop();
        app = await open();
      }
      await spreadGossip(app.ctx);
      await spreadGossip(app.ctx); // a second tick at the same moment changes nothing
      clock.advance(30 * MIN);
    }
    const shape = (pid: string, e: string, minds: Record<string, string>) => {
      const names = Object.fromEntries(Object.entries(minds).map(([n, id]) => [id, n]));
      return whoKnows(app.ctx, pid, e).knowers.map((k) => `${k.name}:${k.hop}:${k.importance}:${k.path.map((p) => names[p]).join(">")}`).sort();
    };
    const a = shape(straight.projectId, e1, straight.minds);
    const b = shape(restarted.projectId, e2, restarted.minds);
    expect(b).toEqual(a);
    // importance 10 reaches Dirk: 10 → 8 → 6 → 4 (each teller normal, threshold 5; Fern silent)
    expect(a).toContain("Dirk:3:4:Anna>Bram>Cora>Dirk");
    expect(new Set(b.map((s) => s.split(":")[0])).size).toBe(b.length);
  });
});

test("the admin API sets and reads a gossip level; a bad one is a 400", async () => {
  const admin = ensureAdminToken(app.db).adminToken;
  const h = (method: string, path: string, body?: unknown) =>
    app.handle(new Request(`http://localhost/admin/v1${path}`, { method, headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) }));
  const put = await h("PUT", `/projects/${projectId}/minds/dirk/gossip`, { level: "chatty" });
  expect([put.status, await put.clone().text()]).toEqual([200, expect.any(String)]);
  expect(await (await h("GET", `/projects/${projectId}/minds/${m.Dirk}/gossip`)).json()).toEqual({ entityMindId: m.Dirk, level: "chatty" });
  expect((await h("PUT", `/projects/${projectId}/minds/dirk/gossip`, { level: "loud" })).status).toBe(400);
  expect((await h("PUT", `/projects/${projectId}/minds/nobody/gossip`, { level: "chatty" })).status).toBe(404);
});
