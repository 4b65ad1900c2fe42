import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { App } from "../../src/app/App.ts";
import { ManualClock } from "../../src/core/clock.ts";
import { silentLogger } from "../../src/ops/logger.ts";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import { spreadGossip } from "../../src/events/gossip.ts";
import { recordEvents } from "../../src/events/recordEvents.ts";
import { whoKnows } from "../../src/events/eventAdmin.ts";
import { rankWorldMemories } from "../../src/events/worldMemories.ts";
import { exportPack, serializePack } from "../../src/packs/exportPack.ts";
import { importPack } from "../../src/packs/importPack.ts";
import { tempDir, testConfig } from "../support/testApp.ts";
import { HashingEmbedder } from "../../src/vectors/HashingEmbedder.ts";
import { apiErrorOf } from "../packs/helpers.ts";

/**
 * The world's history in lore packs: events without a player and who knows them (witnesses, and hearers with
 * their tellers and hops) export, import into another project and re-import without writing; events about a
 * player stay out; a bad event refuses the whole pack with the path of every problem.
 */

const MIN = 60_000;
let dir: string;
let app: App;
let clock: ManualClock;
let admin: string;

const mind = (key: string, location?: string) => ({ key, entityName: key[0].toUpperCase() + key.slice(1), personality: "A villager.", knowledgeTags: ["village"], ...(location ? { location } : {}) });
const village = (name: string) => ({
  project: { name },
  tags: [{ name: "village" }],
  locations: [{ key: "mill", name: "The Mill" }],
  minds: [mind("anna", "mill"), mind("bram"), mind("cora")],
  relationships: [
    { from: "anna", to: "bram", type: "FRIEND" },
    { from: "bram", to: "cora", type: "FRIEND" },
  ],
});

/** Every row the events feature keeps, for "nothing was written" checks. */
const dump = () =>
  JSON.stringify(["events", "world_memories", "memories", "entity_minds", "locations"].map((t) => app.db.query(`SELECT * FROM ${t} ORDER BY rowid`).all()));
const knows = (projectId: string, mindId: string) => rankWorldMemories(app.ctx, { projectId, mindId, query: "", limit: 50 });
const record = async (projectId: string, body: Record<string, unknown>) => (await recordEvents(app.ctx, projectId, [{ type: "news", description: "x", ...body } as any], false)).events[0];

beforeAll(async () => {
  dir = tempDir();
  clock = new ManualClock(new Date("2026-03-01T08:00:00.000Z"));
  app = await App.create(testConfig(dir, { embeddingModel: "hashing" }), { clock, logger: silentLogger, loadModel: false, embedder: new HashingEmbedder() });
  admin = ensureAdminToken(app.db).adminToken;
});
afterAll(async () => {
  await app.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("a world's history round-trips through a pack", () => {
  let source: string;
  let ids: Record<string, string>;
  let millId: string;

  test("export: world events with witnesses and gossip's hearers; a player's event stays out", async () => {
    const r = importPack(app.ctx, village("Source"));
    source = r.projectId;
    ids = r.ids.minds;
    millId = (await record(source, { type: "accident", description: "The mill wheel cracked", witnesses: "location", location: "The Mill", importance: 8, at: "Day 3" })).id;
    await record(source, { type: "theft", description: "The player took a sack of flour", witnesses: [ids.anna], playerId: "p1" });
    await record(source, { type: "secret", description: "Cora buried a box", witnesses: [ids.cora], secret: true });
    // Bram hears of the mill from Anna (hop 1) after the teller's delay
    await spreadGossip(app.ctx);
    clock.advance(60 * MIN);
    expect(knows(source, ids.bram).map((k) => k.hop)).toEqual([1]);

    const pack = exportPack(app.ctx, source);
    expect(pack.events).toHaveLength(2);
    const mill = pack.events!.find((e) => e.type === "accident")!;
    expect(mill).toEqual({
      key: millId,
      type: "accident",
      description: "The mill wheel cracked",
      location: "mill",
      importance: 8,
      at: "Day 3",
      recordedAt: "2026-03-01T08:00:00.000Z",
      witnesses: ["anna"],
      heardBy: [{ mind: "bram", from: "anna", hop: 1, importance: 6, knownAt: "2026-03-01T09:00:00.000Z" }],
    });
    expect(pack.events!.find((e) => e.type === "secret")).toMatchObject({ secret: true, witnesses: ["cora"] });
    expect(JSON.stringify(pack)).not.toContain("flour"); // the player's event is the player's memory, not the world's
  });

  test("imported into a new project: the same history, and who knows what, from the YAML file text", async () => {
    const text = serializePack(exportPack(app.ctx, source), "yaml");
    const { parsePackText } = await import("../../src/packs/importPack.ts");
    const pack = parsePackText(text, "village.yaml") as any;
    pack.project.name = "Copy";
    const copy = importPack(app.ctx, pack);
    const m = copy.ids.minds;
    expect(Object.keys(copy.ids.events).sort()).toEqual(pack.events.map((e: any) => e.key).sort());
    const newMill = copy.ids.events[millId];
    expect(newMill).not.toBe(millId);
    const who = whoKnows(app.ctx, copy.projectId, newMill);
    expect(who.event).toMatchObject({ description: "The mill wheel cracked", importance: 8, at: "Day 3", createdAt: "2026-03-01T08:00:00.000Z", witnesses: [m.anna] });
    expect(who.knowers.map((k) => `${k.name}:${k.hop}:${k.path.length}`).sort()).toEqual(["Anna:0:1", "Bram:1:2"]);
    expect(knows(copy.projectId, m.bram)[0]).toMatchObject({ hop: 1, told_by: m.anna, told_by_name: "Anna", importance: 6 });
    expect(knows(copy.projectId, m.cora).map((k) => k.description)).toEqual(["Cora buried a box"]);
    // exported again, the copy's history reads the same (keys kept, not the copy's ids)
    const again = exportPack(app.ctx, copy.projectId);
    expect(again.events).toEqual(exportPack(app.ctx, source).events);
    // and gossip carries on from where the pack left it, telling nobody twice
    const before = knows(copy.projectId, m.cora).length;
    for (let i = 0; i < 3; i++) {
      await spreadGossip(app.ctx);
      clock.advance(120 * MIN);
    }
    expect(knows(copy.projectId, m.bram)).toHaveLength(1);
    expect(knows(copy.projectId, m.cora).length).toBeGreaterThanOrEqual(before);
    expect(whoKnows(app.ctx, copy.projectId, newMill).knowers.filter((k) => k.name === "Bram")).toHaveLength(1);
  });

  test("an unchanged re-import writes nothing: into the source (events named by id) and into a copy (by key)", () => {
    const pack = exportPack(app.ctx, source) as any;
    const before = dump();
    clock.advance(MIN);
    const r = importPack(app.ctx, pack, { projectId: source });
    expect(r.ids.events[millId]).toBe(millId);
    expect(dump()).toBe(before);
    const copy = importPack(app.ctx, { ...pack, project: { name: "Copy 2" } });
    const afterCopy = dump();
    clock.advance(MIN);
    importPack(app.ctx, pack, { projectId: copy.projectId });
    expect(dump()).toBe(afterCopy);
  });

  test("a changed event updates in place; a hearer is added or set as the pack says", () => {
    const pack = exportPack(app.ctx, source) as any;
    const mill = pack.events.find((e: any) => e.key === millId);
    mill.description = "The mill wheel cracked in two";
    // gossip may have told Cora already (the copy's spreading ran for every project): the pack says how she knows it
    mill.heardBy = [...mill.heardBy.filter((h: any) => h.mind !== "cora"), { mind: "cora", from: "bram", hop: 2 }];
    clock.advance(MIN);
    const r = importPack(app.ctx, pack, { projectId: source });
    expect(r.ids.events[millId]).toBe(millId);
    const who = whoKnows(app.ctx, source, millId);
    expect(who.event.description).toBe("The mill wheel cracked in two");
    expect(who.knowers.find((k) => k.name === "Cora")).toMatchObject({ hop: 2, path: [ids.anna, ids.bram, ids.cora] });
    // a hearer without its own importance or time takes the event's
    expect(knows(source, ids.cora).find((k) => k.event_id === millId)).toMatchObject({ importance: 8, known_at: "2026-03-01T08:00:00.000Z", told_by_name: "Bram" });
  });
});

describe("a bad event refuses the pack", () => {
  test("every problem with its path, and not one row written", async () => {
    const pack = {
      ...village("Bad"),
      events: [
        { key: "a", type: "news", description: "Fine", witnesses: ["anna"] },
        { key: "a", type: "news", description: "Duplicate key" },
        { key: "b", type: "bad type!", description: "  ", importance: 11, witnesses: ["ghost"], location: "nowhere" },
        { key: "c", type: "news", description: "Twice", witnesses: ["anna"], heardBy: [{ mind: "anna", from: "bram", hop: 1 }, { mind: "cora", from: "cora", hop: 0 }] },
        { key: "d", type: "news", description: "When?", recordedAt: "2026-13-45T00:00:00Z", playerId: "p1" },
      ],
    };
    const before = dump();
    const e = await apiErrorOf(() => importPack(app.ctx, pack));
    expect(e.status).toBe(400);
    expect(e.error).toBe("Invalid lore pack");
    const details = e.details.join("\n");
    for (const path of [
      "events[1].key: duplicate key 'a'",
      "events[2].type:",
      "events[2].description:",
      "events[2].importance:",
      "events[2].witnesses[0]: unknown mind 'ghost'",
      "events[2].location: unknown location 'nowhere'",
      "events[3].heardBy[0].mind: this mind already knows the event",
      "events[3].heardBy[1].hop:",
      "events[3].heardBy[1].from: a mind does not tell itself",
      "events[4].recordedAt: is not a real moment",
      "events[4]",
    ]) {
      expect(details).toContain(path);
    }
    expect(details).toMatch(/events\[4\][^\n]*playerId/);
    expect(dump()).toBe(before);
  });

  test("through the Studio's import: 400 with the path; a dry run counts events created, updated and unchanged", async () => {
    const project = importPack(app.ctx, village("Studio")).projectId;
    const call = async (body: unknown) => {
      const res = await app.handle(
        new Request(`http://localhost/admin/v1/projects/${project}/packs/import`, {
          method: "POST",
          headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        }),
      );
      return { status: res.status, body: (await res.json()) as any };
    };
    const before = dump();
    const bad = await call({ text: "events:\n  - key: x\n    type: news\n    description: Hi\n    witnesses: [nobody]\n", fileName: "h.yaml" });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toContain("events[0].witnesses[0]: unknown mind 'nobody'");
    expect(dump()).toBe(before);
    const ok = "events:\n  - key: x\n    type: news\n    description: Hi\n    witnesses: [anna]\n";
    expect((await call({ text: ok, fileName: "h.yaml" })).status).toBe(200);
    const changed = "events:\n  - key: x\n    type: news\n    description: Hi\n    witnesses: [anna, bram]\n  - key: y\n    type: news\n    description: New\n";
    const dry = await call({ text: changed, fileName: "h.yaml", dryRun: true });
    expect(dry.body.changes.events).toEqual({ create: ["y"], update: ["x"], unchanged: [] });
    const same = await call({ text: ok, fileName: "h.yaml", dryRun: true });
    expect(same.body.changes.events).toEqual({ create: [], update: [], unchanged: ["x"] });
    expect(dump()).not.toContain("New");
  });

  test("another project's minds are not found by key: events resolve in the importing project only", async () => {
    const a = importPack(app.ctx, village("A")).projectId;
    const b = importPack(app.ctx, { project: { name: "B" }, tags: [{ name: "village" }], minds: [mind("zed")] }).projectId;
    const e = await apiErrorOf(() => importPack(app.ctx, { events: [{ key: "k", type: "news", description: "Hi", witnesses: ["anna"] }] }, { projectId: b }));
    expect(e.details).toEqual(["events[0].witnesses[0]: unknown mind 'anna'"]);
    expect(exportPack(app.ctx, a).events).toBeUndefined();
  });
});

describe("the demo world's history", () => {
  test("imports into the demo world, each mind knows what it saw or heard, and the export gives the file's events back", async () => {
    const { importPath } = await import("../../src/packs/importPack.ts");
    const demo = new URL("../../examples/thornhaven.yaml", import.meta.url).pathname;
    const history = new URL("../../examples/thornhaven-history.yaml", import.meta.url).pathname;
    // the file's history is from early March: the server's time is after it
    clock.advance(Math.max(0, Date.parse("2026-03-05T00:00:00Z") - clock.now().getTime()));
    const world = await importPath(app.ctx, demo);
    const r = await importPath(app.ctx, history, { projectId: world.projectId });
    expect(Object.keys(r.ids.events).sort()).toEqual(["abbey-lantern", "barge-sunk", "watch-doubled"]);
    const m = world.ids.minds;
    const text = (mind: string) => knows(world.projectId, m[mind]).map((k) => k.description);
    expect(text("garrick")).toEqual(["A grain barge sank at the Wend docks after striking the old pilings."]);
    expect(text("brother-aldous")).toEqual(["A lantern moved through the abbey's sealed east wing at midnight."]);
    expect(text("mara")).toHaveLength(1);
    expect(text("captain-hesk")).toHaveLength(1);
    const { parsePackText } = await import("../../src/packs/importPack.ts");
    const file = parsePackText(await Bun.file(history).text(), "thornhaven-history.yaml") as any;
    const norm = (e: any) => ({ ...e, recordedAt: new Date(e.recordedAt).toISOString(), ...(e.heardBy ? { heardBy: e.heardBy.map((h: any) => ({ ...h, knownAt: new Date(h.knownAt).toISOString() })) } : {}) });
    const byKey = (a: any, b: any) => (a.key < b.key ? -1 : 1);
    expect([...exportPack(app.ctx, world.projectId).events!].sort(byKey)).toEqual(file.events.map(norm).sort(byKey));
  });
});
