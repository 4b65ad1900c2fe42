import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import type { TestApp } from "../support/testApp.ts";
import { demoApp, demoSuite } from "./helpers.ts";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import { createProject } from "../../src/projects/projectService.ts";
import { LORE_TEST_JOB } from "../../src/loretests/loreTestJob.ts";

// real llama.cpp (a tiny random-weight GGUF) on 2 shared cores
setDefaultTimeout(180_000);

let t: TestApp;
let projectId: string;
let otherProject: string;
let admin: string;

beforeAll(async () => {
  ({ t, projectId } = await demoApp());
  admin = ensureAdminToken(t.app.db).adminToken;
  otherProject = createProject(t.app.ctx, { name: "Elsewhere" }).id;
}, 120_000);
afterAll(() => t?.close());

const base = (p = projectId) => `/admin/v1/projects/${p}/lore-tests`;
const oneCase = { file: "one.test.yaml", text: "tests:\n  - { name: inn, mind: garrick, turns: [{ say: What is the Rusty Tankard like?, expect: { knowsFrom: [rusty-tankard] } }] }\n" };

describe("lore test routes", () => {
  let runId = "";
  let secondRun = "";

  test("validate: the cases as they will run, or 400 with every problem's file and path", async () => {
    const ok = await t.call("POST", `${base()}/validate`, { key: admin, body: { files: [demoSuite()] } });
    expect(ok.status).toBe(200);
    expect(ok.body.valid).toBe(true);
    expect(ok.body.cases.length).toBe(6);
    expect(ok.body.cases[0]).toMatchObject({ source: "thornhaven.test.yaml#0", mind: "Garrick Thorne", turns: 1, runs: 1 });
    const bad = await t.call("POST", `${base()}/validate`, { key: admin, body: { files: [{ file: "b.test.yaml", text: "tests:\n  - { name: x, mind: nobody, turns: [{ say: hi, expect: { knowsFrom: [nothing] } }] }\n" }] } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      error: "Invalid lore tests",
      details: ["b.test.yaml#0: mind: no Entity Mind 'nobody' in this project (a pack key, a name or an id)", "b.test.yaml#0: turns[0].expect.knowsFrom: no document 'nothing' in this project"],
    });
  });

  test("bodies are checked against their model: 400 with each problem", async () => {
    for (const [body, detail] of [
      [{}, "files: required"],
      [{ files: [] }, "files: at least 1 item"],
      [{ files: [{ file: "a.yaml" }] }, "files[0].text: required"],
      [{ files: [oneCase], runs: 0 }, "runs: must be an integer from 1 to 50"],
      [{ files: [oneCase], extra: 1 }, "extra: unknown field (known: files, runs, label)"],
      [[1], "body: must be a JSON object"],
    ] as const) {
      const r = await t.call("POST", `${base()}/runs`, { key: admin, body });
      expect({ status: r.status, error: r.body.error, details: r.body.details }).toEqual({ status: 400, error: "Invalid request", details: [detail] });
    }
    const raw = await t.call("POST", `${base()}/runs`, { key: admin, rawBody: "{not json" });
    expect(raw.status).toBe(400);
    expect((await t.call("GET", `${base()}/runs`, { key: admin })).body.runs).toEqual([]);
  });

  test("start a run (202, queued), the job runs it, status and results follow", async () => {
    const r = await t.call("POST", `${base()}/runs`, { key: admin, body: { files: [oneCase], label: "first" } });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ status: "QUEUED", label: "first", progress: { total: 1, done: 0, passed: 0, failed: 0 } });
    runId = r.body.id;
    await t.app.scheduler.trigger(LORE_TEST_JOB);
    const s = await t.call("GET", `${base()}/runs/${runId}`, { key: admin });
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ id: runId, status: "PASSED", progress: { total: 1, done: 1, passed: 1, failed: 0 } });
    expect(s.body.model).toMatch(/@[0-9a-f]{16}$/);
    const res = await t.call("GET", `${base()}/runs/${runId}/results`, { key: admin });
    expect(res.status).toBe(200);
    const turn = res.body.cases[0].runs[0].turns[0];
    expect(turn.checks).toEqual([expect.objectContaining({ check: "knowsFrom rusty-tankard", pass: true })]);
    expect(turn.trace.lore.length).toBeGreaterThan(0);
    const list = await t.call("GET", `${base()}/runs`, { key: admin });
    expect(list.body.runs.map((x: any) => x.id)).toEqual([runId]);
    const suites = await t.call("GET", `${base()}/suites`, { key: admin });
    expect(suites.body.suites).toEqual([{ file: "one.test.yaml", text: oneCase.text, lastRunId: runId, lastRunAt: s.body.createdAt }]);
  });

  test("compare two runs through the API", async () => {
    const broken = { ...oneCase, text: oneCase.text.replace("rusty-tankard", "smugglers-tunnel") };
    const r = await t.call("POST", `${base()}/runs`, { key: admin, body: { files: [broken] } });
    secondRun = r.body.id;
    await t.app.scheduler.trigger(LORE_TEST_JOB);
    const d = await t.call("GET", `${base()}/compare?a=${runId}&b=${secondRun}`, { key: admin });
    expect(d.status).toBe(200);
    expect(d.body.changed.map((c: any) => [c.name, c.direction])).toEqual([["inn", "broke"]]);
    expect(d.body.a.id).toBe(runId);
    expect(typeof d.body.changed[0].b.runs[0].turns[0].reply).toBe("string");
    expect((await t.call("GET", `${base()}/compare?a=${runId}`, { key: admin })).status).toBe(400);
  });

  test("another project's runs are not found; an unknown project is 404", async () => {
    for (const path of [`${base(otherProject)}/runs/${runId}`, `${base(otherProject)}/runs/${runId}/results`, `${base(otherProject)}/compare?a=${runId}&b=${secondRun}`]) {
      const r = await t.call("GET", path, { key: admin });
      expect({ path, status: r.status, body: r.body }).toEqual({ path, status: 404, body: { error: "Lore test run not found" } });
    }
    expect((await t.call("GET", `${base(otherProject)}/runs`, { key: admin })).body.runs).toEqual([]);
    expect((await t.call("GET", `${base(otherProject)}/suites`, { key: admin })).body.suites).toEqual([]);
    // a suite naming this project's minds does not resolve in another project
    const v = await t.call("POST", `${base(otherProject)}/validate`, { key: admin, body: { files: [oneCase] } });
    expect(v.status).toBe(400);
    const none = await t.call("GET", `${base("proj_nope")}/runs`, { key: admin });
    expect(none).toMatchObject({ status: 404, body: { error: "Project not found" } });
  });

  test("without the admin token, or with a wrong one or a project key: 401 on every route", async () => {
    const paths: [string, string, unknown?][] = [
      ["POST", `${base()}/validate`, { files: [oneCase] }],
      ["POST", `${base()}/runs`, { files: [oneCase] }],
      ["GET", `${base()}/runs`],
      ["GET", `${base()}/suites`],
      ["GET", `${base()}/runs/${runId}`],
      ["GET", `${base()}/runs/${runId}/results`],
      ["GET", `${base()}/compare?a=${runId}&b=${secondRun}`],
    ];
    const serverKey = (await import("../../src/auth/apiKeys.ts")).createApiKey(t.app.ctx, { projectId, type: "server" }).key;
    for (const key of [null, "lh_admin_wrong", serverKey]) {
      for (const [method, path, body] of paths) {
        const r = await t.call(method, path, { key, body });
        expect({ path, status: r.status, body: r.body }).toEqual({ path, status: 401, body: { error: "Invalid authentication" } });
      }
    }
    // nothing was queued by the refused calls
    expect((await t.call("GET", `${base()}/runs`, { key: admin })).body.runs.length).toBe(2);
  });
});

describe("a run when the server stops", () => {
  test("the run job stops before its next case: the run ends ERROR, the copy is deleted", async () => {
    const r = await t.call("POST", `${base()}/runs`, { key: admin, body: { files: [oneCase], runs: 5 } });
    const scratch = () => readdirSync(tmpdir()).filter((d) => d.startsWith("lorehold-loretest-"));
    const before = scratch();
    const stop = new AbortController();
    stop.abort();
    const { runNextQueued } = await import("../../src/loretests/loreTestService.ts");
    expect(await runNextQueued(t.app.ctx as never, stop.signal)).toBeNull();
    const s = await t.call("GET", `${base()}/runs/${r.body.id}`, { key: admin });
    expect(s.body).toMatchObject({ status: "ERROR", error: "interrupted: the server stopped during the run", progress: { done: 0 } });
    expect(scratch()).toEqual(before);
  });
});
