import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { buildWorld, type World } from "../support/world.ts";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import { exportPack, serializePack } from "../../src/packs/exportPack.ts";
import { importPack, parsePackText } from "../../src/packs/importPack.ts";
import { PackSchema } from "../../src/packs/packSchema.ts";
import { writeStateSchema } from "../../src/state/stateService.ts";
import { apiErrorOf, newCtx } from "../packs/helpers.ts";

/** Conditions on lore, authored: a document's `when` and timers, a mind's conditional knowledge. */

let t: TestApp;
let w: World;
let admin: string;
const api = (method: string, path: string, body?: unknown) => t.call(method, `/admin/v1/projects/${w.projectId}/${path}`, { key: admin, body });

beforeAll(async () => {
  t = await createTestApp({}, { loadModel: false });
  w = buildWorld(t.app.ctx as any, "Thornhaven", { index: "none" });
  admin = ensureAdminToken(t.app.db).adminToken;
  writeStateSchema(t.app.ctx, w.projectId, {
    stateKeys: { "quest.flood.stage": { type: "number", default: 0 }, "faction.watch": { type: "string", enum: ["friendly", "hostile"] } },
  });
});
afterAll(() => t.close());

describe("a document's condition and timers through the admin API", () => {
  test("created, read back, changed and cleared; the spec's lore routes show none of it", async () => {
    const r = await api("POST", "documents", { name: "The Sealed Crypt", content: "Below the abbey.", tags: ["tavern"], when: "quest.flood.stage >= 2", sticky: 3, cooldown: 2, delay: 1 });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ when: "quest.flood.stage >= 2", sticky: 3, cooldown: 2, delay: 1 });
    const id = r.body.id;
    expect((await api("GET", `documents/${id}`)).body).toMatchObject({ when: "quest.flood.stage >= 2", sticky: 3 });
    const patched = await api("PATCH", `documents/${id}`, { when: "faction.watch == 'friendly'", sticky: null });
    expect(patched.body).toMatchObject({ when: "faction.watch == 'friendly'", sticky: null, cooldown: 2, delay: 1 });
    // A changed condition does not re-index the document (chunks do not carry it).
    expect(patched.body.status).toBe(r.body.status);
    const spec = await t.call("GET", `/v1/lore/documents/${id}`, { key: w.keys.editor });
    expect(spec.status).toBe(200);
    expect("when" in spec.body.document).toBe(false);
    expect((await api("PATCH", `documents/${id}`, { when: null })).body.when).toBeNull();
  });
  test("a bad condition or timer: 400 with the path of every problem, nothing written", async () => {
    const before = (await api("GET", "documents")).body.documents.length;
    // The body's shape first (the admin API's schema), then the condition's own rules (the service).
    const r = await api("POST", "documents", { name: "Bad", content: "x", sticky: -1, delay: 1.5 });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("Invalid request");
    expect(r.body.details).toEqual(["sticky: must be a number from 0 to 1000", "delay: must be a number from 0 to 1000"]);
    const unknown = await api("POST", "documents", { name: "Bad", content: "x", when: "quest.flood.stage >= 2 && size(x) > 1" });
    expect(unknown.body.details).toEqual(["when: unknown function 'size' (conditions know has(key)) (at character 27)"]);
    const typed = await api("POST", "documents", { name: "Bad", content: "x", when: "quest.flood.stage >= 'two' || faction.watch == 'frendly'" });
    expect(typed.body.details).toEqual([
      `when: '>=' compares quest.flood.stage (number) with "two" (at character 1)`,
      `when: faction.watch is one of "friendly", "hostile"; "frendly" is not (at character 31)`,
    ]);
    const syntax = await api("POST", "documents", { name: "Bad", content: "x", when: "trust >= 3 &&" });
    expect(syntax.body.details).toEqual(["when: syntax: Unexpected token: EOF (at character 14)"]);
    expect((await api("GET", "documents")).body.documents.length).toBe(before);
  });
});

describe("a mind's conditional knowledge through the admin API", () => {
  test("created, read back and replaced; knowledgeTags stay the always-known tags", async () => {
    const r = await api("POST", "minds", {
      entityName: "Prior Aldric",
      personality: "Grave.",
      knowledgeTags: ["town-history"],
      knowledge: [{ tag: "smugglers", when: "quest.flood.stage >= 2" }, { tag: "tavern", when: "trust >= 3" }],
    });
    expect(r.status).toBe(201);
    expect(r.body.knowledgeTags).toEqual(["town-history"]);
    expect(r.body.knowledge).toEqual([{ tag: "smugglers", when: "quest.flood.stage >= 2" }, { tag: "tavern", when: "trust >= 3" }]);
    const p = await api("PATCH", `minds/${r.body.id}`, { knowledge: [{ tag: "tavern", when: "has(quest.flood.stage)" }] });
    expect(p.body.knowledge).toEqual([{ tag: "tavern", when: "has(quest.flood.stage)" }]);
    expect(p.body.knowledgeTags).toEqual(["town-history"]);
    const spec = (await t.call("GET", "/v1/lore/minds", { key: w.keys.editor })).body.minds.find((m: any) => m.id === r.body.id);
    expect("knowledge" in spec).toBe(false);
  });
  test("a mind with only conditional knowledge: GET /lore/minds keeps the spec's rule (knowledgeTags non-empty), interact accepts it", async () => {
    const r = await api("POST", "minds", { entityName: "Sometimes Sage", personality: "Moody.", knowledge: [{ tag: "tavern", when: "turn > 2" }] });
    const listed = (await t.call("GET", "/v1/lore/minds", { key: w.keys.editor })).body.minds.map((m: any) => m.id);
    expect(listed).not.toContain(r.body.id);
    const p = await api("POST", "interact-preview", { text: "Hello", entityMindId: r.body.id, playerId: "sage-fan" });
    expect(p.status).toBe(200);
    expect(p.body.visibleTags).toEqual([]);
    expect(p.body.conditions.knowledge).toEqual([{ tag: "tavern", when: "turn > 2", open: false }]);
  });
  test("bad entries: 400 with every path", async () => {
    const r = await api("POST", "minds", {
      entityName: "Bad",
      personality: "x",
      knowledge: [{ tag: "nope", when: "true" }, { tag: "tavern", when: "foo()" }, { tag: "tavern", when: "true" }, { tag: "smugglers", when: " " }],
    });
    expect(r.status).toBe(400);
    expect(r.body.details).toEqual([
      "knowledge[0].tag: unknown tag 'nope'",
      "knowledge[1].when: unknown function 'foo' (conditions know has(key)) (at character 1)",
      "knowledge[2].tag: 'tavern' is named twice: join its conditions with ||",
      "knowledge[3].when: required: the condition under which the tag opens",
    ]);
    const shape = await api("POST", "minds", { entityName: "Bad", personality: "x", knowledge: [{ tag: "tavern", when: "true", extra: 1 }, { tag: "history" }] });
    expect(shape.status).toBe(400);
    expect(shape.body.details.join("\n")).toMatch(/knowledge\.0\.extra: unknown field/);
    expect((await api("GET", "minds")).body.minds.some((m: any) => m.entityName === "Bad")).toBe(false);
  });
});

describe("lore packs carry conditions, timers and conditional knowledge", () => {
  const PACK = {
    project: { name: "Abbey" },
    state: { stateKeys: { "quest.flood.stage": { type: "number", default: 0 } }, exclusiveGroups: ["pose"] },
    tags: [{ name: "crypt" }, { name: "abbey" }],
    minds: [{ key: "prior", entityName: "Prior", personality: "Grave.", knowledgeTags: ["abbey"], knowledge: [{ tag: "crypt", when: "quest.flood.stage >= 2" }] }],
    documents: [
      { key: "crypt", name: "The Sealed Crypt", tags: ["crypt"], when: "quest.flood.stage >= 2 && !has(player.crypt.sealed)", sticky: 2, cooldown: 3, delay: 1, content: "Below." },
      { key: "bells", name: "Abbey Bells", tags: ["abbey"], content: "They ring." },
    ],
  };
  test("export → import (YAML and JSON) → the same pack", () => {
    const ctx = newCtx();
    const { projectId } = importPack(ctx, PACK);
    const pack = exportPack(ctx, projectId);
    expect(Value.Check(PackSchema, pack)).toBe(true);
    expect(pack.documents!.find((d) => d.key === "crypt")).toEqual({ ...PACK.documents[0] });
    expect(pack.documents!.find((d) => d.key === "bells")).toEqual(PACK.documents[1]);
    expect(pack.minds![0].knowledge).toEqual(PACK.minds[0].knowledge);
    for (const format of ["yaml", "json"] as const) {
      const again = newCtx();
      const r = importPack(again, parsePackText(serializePack(pack, format), `p.${format}`));
      expect(exportPack(again, r.projectId)).toEqual(pack);
    }
  });
  test("re-importing unchanged writes nothing; a changed condition is written", () => {
    const ctx = newCtx();
    const { projectId, ids } = importPack(ctx, PACK);
    const at = () => ctx.db.query<{ updated_at: string }, [string]>("SELECT updated_at FROM documents WHERE id = ?").get(ids.documents.crypt)!.updated_at;
    const mindAt = () => ctx.db.query<{ updated_at: string }, [string]>("SELECT updated_at FROM entity_minds WHERE id = ?").get(ids.minds.prior)!.updated_at;
    const [d0, m0] = [at(), mindAt()];
    ctx.clock.advance(60_000);
    importPack(ctx, PACK, { projectId });
    expect([at(), mindAt()]).toEqual([d0, m0]);
    importPack(ctx, { ...PACK, documents: [{ ...PACK.documents[0], when: "quest.flood.stage >= 3" }], minds: [{ ...PACK.minds[0], knowledge: [] }] }, { projectId });
    expect(at()).not.toBe(d0);
    expect(mindAt()).not.toBe(m0);
    const pack = exportPack(ctx, projectId);
    expect(pack.documents!.find((d) => d.key === "crypt")!.when).toBe("quest.flood.stage >= 3");
    expect(pack.minds![0].knowledge).toBeUndefined();
  });
  test("conditions are checked against the declarations the import leaves: the pack's own, else the project's", async () => {
    const ctx = newCtx();
    const bad = {
      ...PACK,
      documents: [{ ...PACK.documents[0], when: "quest.flood.stage == 'high' && nope(1)", sticky: 5000 }],
      minds: [{ ...PACK.minds[0], knowledge: [{ tag: "crypt", when: "quest.flood.stage" }, { tag: "crypt", when: "true" }, { tag: "ghost", when: "true" }] }],
    };
    const e = await apiErrorOf(() => importPack(ctx, bad));
    expect(e.status).toBe(400);
    expect(e.details).toEqual([
      "minds[0].knowledge[0].when: a condition is true or false, this is a number (at character 1)",
      "minds[0].knowledge[1].tag: 'crypt' is named twice: join its conditions with ||",
      "minds[0].knowledge[2].tag: unknown tag 'ghost'",
      "documents[0].sticky: must be an integer from 0 to 1000",
      "documents[0].when: unknown function 'nope' (conditions know has(key)) (at character 32)",
    ]);
    // Without a state section the project's declarations apply.
    const { projectId } = importPack(ctx, PACK);
    const e2 = await apiErrorOf(() => importPack(ctx, { documents: [{ key: "x", name: "X", content: "x", when: "quest.flood.stage == true" }] }, { projectId }));
    expect(e2.details).toEqual(["documents[0].when: '==' compares quest.flood.stage (number) with true (at character 1)"]);
    expect(ctx.db.query("SELECT COUNT(*) AS n FROM projects").get()).toEqual({ n: 1 });
  });
});
