import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
// The retrieval the product runs (interact and the preview go through it), not the vector store's own hybrid.
import { retrieveLore } from "../../src/retrieval/hybridSearch.ts";

let t: TestApp;
let token: string;
let pid: string;
const admin = (method: string, path: string, body?: unknown) => t.call(method, `/admin/v1${path}`, { key: token, body });

beforeAll(async () => {
  t = await createTestApp();
  token = ensureAdminToken(t.app.db).adminToken;
  pid = (await admin("POST", "/projects", { name: "Admin World" })).body.id;
});
afterAll(() => t.close());

describe("admin auth", () => {
  const cases: Array<[string, () => Record<string, string>]> = [
    ["no header", () => ({})],
    ["wrong token", () => ({ authorization: "Bearer lh_admin_wrong" })],
    ["token with a character changed", () => ({ authorization: `Bearer ${token.slice(0, -1)}${token.endsWith("a") ? "b" : "a"}` })],
    ["an API key", () => ({ authorization: "Bearer sk_editor_" + "a".repeat(43) })],
  ];
  for (const [name, headers] of cases) {
    test(`401 with ${name}`, async () => {
      const r = await t.call("GET", "/admin/v1/projects", { headers: headers() });
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ error: "Invalid authentication" });
    });
  }
  test("a configured adminToken replaces the stored one", async () => {
    const t2 = await createTestApp({ adminToken: "configured-token-123" });
    try {
      expect((await t2.call("GET", "/admin/v1/projects", { key: "configured-token-123" })).status).toBe(200);
    } finally {
      await t2.close();
    }
  });
});

describe("authoring CRUD", () => {
  test("tags: create, duplicate 409, rename, delete; default tags protected", async () => {
    const c = await admin("POST", `/projects/${pid}/tags`, { name: "crypt", color: "#112233" });
    expect(c.status).toBe(201);
    expect(c.body).toMatchObject({ name: "crypt", color: "#112233", isDefault: false, documentCount: 0 });
    const dup = await admin("POST", `/projects/${pid}/tags`, { name: "crypt" });
    expect(dup.status).toBe(409);
    const ren = await admin("PATCH", `/projects/${pid}/tags/${c.body.id}`, { name: "crypts" });
    expect(ren.body.name).toBe("crypts");
    const list = await admin("GET", `/projects/${pid}/tags`);
    const general = list.body.tags.find((x: any) => x.name === "general");
    const del = await admin("DELETE", `/projects/${pid}/tags/${general.id}`);
    expect(del.status).toBe(400);
    expect((await admin("DELETE", `/projects/${pid}/tags/${c.body.id}`)).body).toEqual({ id: c.body.id, deleted: true });
  });

  test("minds, locations, relationship types and relationships", async () => {
    const loc = await admin("POST", `/projects/${pid}/locations`, { name: "Crossroads", description: "Where roads meet" });
    expect(loc.status).toBe(201);
    const m1 = await admin("POST", `/projects/${pid}/minds`, { entityName: "Ada", personality: "Curious", knowledgeTags: ["general"], locationId: loc.body.id });
    expect(m1.status).toBe(201);
    expect(m1.body).toMatchObject({ entityName: "Ada", knowledgeTags: ["general"], location: { id: loc.body.id, name: "Crossroads" } });
    const m2 = await admin("POST", `/projects/${pid}/minds`, { entityName: "Bo", personality: "Gruff" });
    const rt = await admin("POST", `/projects/${pid}/relationship-types`, { name: "Blood Oath", color: "#AA0000", isSymmetric: true });
    expect(rt.body).toMatchObject({ name: "Blood Oath", color: "#aa0000", isSymmetric: true, usageCount: 0 });
    const rel = await admin("POST", `/projects/${pid}/relationships`, { fromEntityId: m1.body.id, toEntityId: m2.body.id, customTypeId: rt.body.id });
    expect(rel.status).toBe(201);
    expect(rel.body.customType).toEqual({ id: rt.body.id, name: "Blood Oath", color: "#aa0000" });
    const patched = await admin("PATCH", `/projects/${pid}/minds/${m2.body.id}`, { role: "Guard", knowledgeTags: ["history"] });
    expect(patched.body).toMatchObject({ entityName: "Bo", role: "Guard", knowledgeTags: ["history"], relationshipCount: 1 });
    // deleting a mind cascades to its relationships
    await admin("DELETE", `/projects/${pid}/minds/${m2.body.id}`);
    expect((await admin("GET", `/projects/${pid}/relationships`)).body.relationships).toHaveLength(0);
  });

  const bad: Array<[string, string, string, unknown, number, string[]]> = [
    ["mind without personality", "POST", "minds", { entityName: "X" }, 400, ["personality: required, a string of at most 20000 characters"]],
    ["mind with unknown field", "POST", "minds", { entityName: "X", personality: "Y", mood: "sad" }, 400, ["mood: unknown field"]],
    ["mind with unknown tag", "POST", "minds", { entityName: "X", personality: "Y", knowledgeTags: ["nope"] }, 400, ["knowledgeTags[0]: unknown tag 'nope'"]],
    ["mind with unknown location", "POST", "minds", { entityName: "X", personality: "Y", locationId: "loc_nope" }, 400, ["locationId: no such location in this project"]],
    ["mind with bad verbosity", "POST", "minds", { entityName: "X", personality: "Y", responseConfig: { verbosity: "loud" } }, 400, ["responseConfig.verbosity: must be one of terse, balanced, verbose"]],
    ["tag with bad colour", "POST", "tags", { name: "x", color: "red" }, 400, ["color: must be a colour like #aa5500"]],
    ["relationship with both types", "POST", "relationships", { fromEntityId: "a", toEntityId: "b", type: "FRIEND", customTypeId: "c" }, 400, []],
    ["relationship with unknown built-in type", "POST", "relationships", { fromEntityId: "a", toEntityId: "b", type: "PAL" }, 400, []],
    ["document with unknown tag", "POST", "documents", { name: "D", content: "x", tags: ["nope"] }, 400, ["tags[0]: unknown tag 'nope'"]],
    ["settings out of range", "PATCH", "settings", { maxSessionLength: 0 }, 400, ["maxSessionLength: must be an integer from 1 to 1000"]],
    ["settings unknown key", "PATCH", "settings", { colour: 1 }, 400, ["colour: unknown field"]],
    ["unknown mind", "PATCH", "minds/mind_nope", { role: "x" }, 404, []],
  ];
  for (const [name, method, path, body, status, details] of bad) {
    test(`${status}: ${name}`, async () => {
      const before = (await admin("GET", `/projects/${pid}/minds`)).body.minds.length;
      const r = await admin(method, `/projects/${pid}/${path}`, body);
      expect(r.status).toBe(status);
      if (details.length) expect(r.body).toEqual({ error: "Invalid request", details });
      expect((await admin("GET", `/projects/${pid}/minds`)).body.minds.length).toBe(before);
    });
  }
  test("malformed JSON is 400", async () => {
    const r = await t.call("POST", `/admin/v1/projects/${pid}/tags`, { key: token, rawBody: "{nope" });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("Invalid request");
  });
  test("an unknown project is 404 Project not found", async () => {
    const r = await admin("GET", "/projects/proj_nope/minds");
    expect(r).toMatchObject({ status: 404, body: { error: "Project not found" } });
  });
});

/** POST …/jobs/{name}/run answers 202 with a run id at once; the run is polled until it ends. */
async function runJob(name: string) {
  const started = await admin("POST", `/jobs/${name}/run`);
  expect(started.status).toBe(202);
  expect(started.body).toMatchObject({ job: name, state: "running" });
  for (;;) {
    const run = await admin("GET", `/jobs/runs/${started.body.runId}`);
    if (run.body.state !== "running") return run;
    await Bun.sleep(5);
  }
}

describe("documents go through the indexer", () => {
  test("PENDING → COMPLETED with chunks in SQLite and LanceDB; edit re-indexes; delete removes vectors", async () => {
    const d = await admin("POST", `/projects/${pid}/documents`, {
      name: "The Crossroads Shrine",
      content: "# Shrine\n\nA shrine of grey stone stands where the roads cross.\n\nPilgrims leave copper coins.",
      tags: ["history"],
    });
    expect(d.body.status).toBe("PENDING");
    const run = await runJob("indexer");
    expect(run.body.result).toMatchObject({ indexed: 1, failed: 0 });
    const got = await admin("GET", `/projects/${pid}/documents/${d.body.id}`);
    expect(got.body.status).toBe("COMPLETED");
    expect(got.body.chunkCount).toBeGreaterThan(0);
    expect(got.body.chunks[0].tags).toEqual(["history"]);
    const hits = await retrieveLore(t.app.ctx, { projectId: pid, query: "copper coins", tags: ["history"], k: 5 });
    expect(hits[0].documentId).toBe(d.body.id);
    await admin("PATCH", `/projects/${pid}/documents/${d.body.id}`, { tags: ["geography"] });
    expect((await admin("GET", `/projects/${pid}/documents/${d.body.id}`)).body.status).toBe("PENDING");
    await runJob("indexer");
    expect(await retrieveLore(t.app.ctx, { projectId: pid, query: "copper coins", tags: ["history"], k: 5 })).toEqual([]);
    expect((await retrieveLore(t.app.ctx, { projectId: pid, query: "copper coins", tags: ["geography"], k: 5 }))[0].documentId).toBe(d.body.id);
    await admin("DELETE", `/projects/${pid}/documents/${d.body.id}`);
    const after = await runJob("indexer");
    expect(after.body.result).toMatchObject({ removed: 1 });
    expect(await retrieveLore(t.app.ctx, { projectId: pid, query: "copper coins", tags: ["geography"], k: 5 })).toEqual([]);
  });
  test("unknown job is 404", async () => {
    expect((await admin("POST", "/jobs/nope/run")).status).toBe(404);
    expect((await admin("GET", "/jobs/runs/run_nope")).body).toEqual({ error: "Job run not found" });
  });
});

describe("credits and rate limits", () => {
  test("show, grant, plan", async () => {
    const show = await admin("GET", `/projects/${pid}/credits`);
    expect(show.body).toEqual({ monthlyAllotment: 10000, allotmentRemaining: 10000, topUp: 0, available: 10000 });
    expect((await admin("POST", `/projects/${pid}/credits/grant`, { credits: 2.5 })).body).toMatchObject({ topUp: 2.5, available: 10002.5 });
    expect((await admin("PUT", `/projects/${pid}/credits/plan`, { monthly: 100 })).body).toEqual({ monthlyAllotment: 100, allotmentRemaining: 100, topUp: 2.5, available: 102.5 });
    expect((await admin("POST", `/projects/${pid}/credits/grant`, { credits: 0 })).status).toBe(400);
    expect((await admin("POST", `/projects/${pid}/credits/grant`, { credits: 1, extra: 1 })).status).toBe(400);
  });
  test("rate limits", async () => {
    expect((await admin("GET", `/projects/${pid}/rate-limits`)).body).toEqual({ perPlayerPerMinute: 60, perProjectPerMinute: 200 });
    expect((await admin("PATCH", `/projects/${pid}/rate-limits`, { perProjectPerMinute: 500 })).body).toEqual({ perPlayerPerMinute: 60, perProjectPerMinute: 500 });
    expect((await admin("PATCH", `/projects/${pid}/rate-limits`, { perPlayerPerMinute: 0 })).status).toBe(400);
  });
});
