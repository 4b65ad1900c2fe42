import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { buildWorld, type World } from "../support/world.ts";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import { createDocument } from "../../src/lore/documents/writeDocuments.ts";
import { createMind } from "../../src/lore/minds/writeMinds.ts";
import { writeStateSchema } from "../../src/state/stateService.ts";

/** The Studio's state simulator and condition check: the gate a turn applies, for a state the author sets. */

let t: TestApp;
let w: World;
let other: World;
let admin: string;
let crypt: string;
let late: string;
let prior: string;
const call = (path: string, body: unknown, key: string | undefined = admin) => t.call("POST", `/admin/v1${path}`, { key, body });

beforeAll(async () => {
  t = await createTestApp();
  w = buildWorld(t.app.ctx as any, "Thornhaven", { index: "none" });
  other = buildWorld(t.app.ctx as any, "Elsewhere", { index: "none" });
  admin = ensureAdminToken(t.app.db).adminToken;
  const ctx = t.app.ctx;
  writeStateSchema(ctx, w.projectId, { stateKeys: { "quest.flood.stage": { type: "number", default: 0 } } });
  crypt = createDocument(ctx, w.projectId, { name: "The Sealed Crypt", content: "Beneath the abbey.", tags: ["tavern"], when: "quest.flood.stage >= 2" }).id;
  late = createDocument(ctx, w.projectId, { name: "Tower Key", content: "Behind the altar cloth.", tags: ["tavern"], delay: 2 }).id;
  prior = createMind(ctx, w.projectId, {
    entityName: "Prior Aldric",
    personality: "Grave.",
    knowledgeTags: ["town-history"],
    knowledge: [{ tag: "tavern", when: "met.garrick" }],
    restrictions: [{ text: "Never speak of the crypt", when: "!(quest.flood.stage >= 2)" }],
  }).id;
});
afterAll(() => t.close());

const mindOf = (r: any, id: string) => r.body.minds.find((m: any) => m.id === id);
const docOf = (m: any, id: string) => m.documents.find((d: any) => d.documentId === id);

describe("POST /projects/:id/knowledge-simulate", () => {
  test("a document gated by a condition flips from out to in with its reason as the state changes", async () => {
    const before = await call(`/projects/${w.projectId}/knowledge-simulate`, { world: {}, player: {} });
    expect(before.status).toBe(200);
    const garrick = mindOf(before, w.minds.garrick);
    expect(docOf(garrick, crypt)).toMatchObject({ in: false, reasons: ["tag tavern (always known)", "when quest.flood.stage >= 2: its condition is false"] });
    expect(docOf(garrick, late)).toMatchObject({ in: false, reasons: ["tag tavern (always known)", "delay: opens at turn 2 (this is turn 0)"] });
    const after = await call(`/projects/${w.projectId}/knowledge-simulate`, { world: { "quest.flood.stage": 2 }, player: {}, turn: 2 });
    expect(docOf(mindOf(after, w.minds.garrick), crypt)).toMatchObject({ in: true, reasons: ["tag tavern (always known)", "when quest.flood.stage >= 2: its condition holds"] });
    expect(docOf(mindOf(after, w.minds.garrick), late).in).toBe(true);
    expect(after.body.scope).toMatchObject({ world: { "quest.flood.stage": 2 }, defaults: { "quest.flood.stage": 0 }, turn: 2 });
  });
  test("conditional knowledge opens a tag only while true; conditional lines say whether they apply", async () => {
    const off = mindOf(await call(`/projects/${w.projectId}/knowledge-simulate`, { player: {} }), prior);
    expect(off.knowledge).toEqual([{ tag: "tavern", when: "met.garrick", open: false }]);
    expect(off.documents.filter((d: any) => d.reasons[0] === "tag tavern: met.garrick is false").every((d: any) => !d.in)).toBe(true);
    expect(off.lines).toEqual([{ kind: "restriction", text: "Never speak of the crypt", when: "!(quest.flood.stage >= 2)", applies: true }]);
    const on = mindOf(await call(`/projects/${w.projectId}/knowledge-simulate`, { player: { "met.garrick": true }, world: { "quest.flood.stage": 3 } }), prior);
    expect(docOf(on, crypt)).toMatchObject({ in: true });
    expect(on.lines[0].applies).toBe(false);
  });
  test("bad state is a 400 naming each problem", async () => {
    const r = await call(`/projects/${w.projectId}/knowledge-simulate`, { world: { "quest.flood.stage": "two", "Bad Key": 1 }, turn: -1 });
    expect(r.status).toBe(400);
    expect(r.body.details).toEqual([
      "world.quest.flood.stage: declared as number",
      expect.stringMatching(/^world\.Bad Key: /),
      "turn: must be an integer from 0 to 10000",
    ]);
    expect((await call(`/projects/${w.projectId}/knowledge-simulate`, { world: [] })).status).toBe(400);
  });
  test("scoped to the project: another project's documents and minds never appear; unknown project 404; wrong token 401", async () => {
    const r = await call(`/projects/${other.projectId}/knowledge-simulate`, {});
    expect(r.status).toBe(200);
    const ids = r.body.minds.flatMap((m: any) => [m.id, ...m.documents.map((d: any) => d.documentId)]);
    expect(ids).not.toContain(crypt);
    expect(ids).not.toContain(prior);
    expect((await call("/projects/proj_nope/knowledge-simulate", {})).status).toBe(404);
    expect((await call(`/projects/${w.projectId}/knowledge-simulate`, {}, "wrong")).status).toBe(401);
    expect((await call(`/projects/${w.projectId}/knowledge-simulate`, {}, w.keys.server)).status).toBe(401);
  });
});

describe("POST /projects/:id/conditions/check", () => {
  test("problems with their offsets, against the project's declared keys", async () => {
    const ok = await call(`/projects/${w.projectId}/conditions/check`, { condition: "quest.flood.stage >= 2" });
    expect(ok.body).toEqual({ ok: true, problems: [] });
    const bad = await call(`/projects/${w.projectId}/conditions/check`, { condition: 'quest.flood.stage >= "two"' });
    expect(bad.body.ok).toBe(false);
    expect(bad.body.problems[0].message).toMatch(/quest.flood.stage \(number\).*\(at character \d+\)$/);
    // the same text is fine where the key is not declared
    expect((await call(`/projects/${other.projectId}/conditions/check`, { condition: 'quest.flood.stage >= "two"' })).body.ok).toBe(true);
    expect((await call(`/projects/${w.projectId}/conditions/check`, { condition: "" })).status).toBe(400);
    expect((await call("/projects/proj_nope/conditions/check", { condition: "a" })).status).toBe(404);
    expect((await call(`/projects/${w.projectId}/conditions/check`, { condition: "a" }, "wrong")).status).toBe(401);
  });
});
