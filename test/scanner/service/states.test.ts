import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { getProjectBalance } from "../../../src/credits/ledger.ts";
import { uploadPath } from "../../../src/scanner/uploadStore.ts";
import { job, LORE, manifestOf, put, runWorker, scanFixture, submitAndUpload, zipOf, type ScanFixture } from "./scanSupport.ts";

// The spec's "States and transitions" table, row by row, plus every 400/403/404/409 of the job endpoints.
let f: ScanFixture;
const files = [{ path: "docs/lore.md", data: LORE.md }];
const ids: Record<"pending" | "uploaded" | "queued" | "processing" | "completed" | "failed", string> = {} as never;
let uploadUrlOfUploaded = "";
let uploadUrlOfFailed = "";

beforeAll(async () => {
  f = await scanFixture();
  const s = (await f.t.call("POST", "/v1/scanner/submit-archive", { key: f.w.keys.editor, body: { files: manifestOf(files), totalSizeBytes: 10_000 } })).body;
  ids.pending = s.jobId;
  const u = await submitAndUpload(f, files, { confirm: false });
  ids.uploaded = u.jobId;
  uploadUrlOfUploaded = u.submit.uploadUrl;
  ids.completed = (await submitAndUpload(f, files)).jobId;
  await runWorker(f);
  ids.queued = (await submitAndUpload(f, files)).jobId;
  ids.processing = (await submitAndUpload(f, files)).jobId;
  // A worker mid-job (the worker itself is exercised in worker.test.ts).
  f.t.app.db.query("UPDATE scan_jobs SET status = 'PROCESSING', started_at = created_at, attempts = 1 WHERE id = ?").run(ids.processing);
  const failed = await submitAndUpload(f, files, { confirm: false });
  ids.failed = failed.jobId;
  uploadUrlOfFailed = failed.submit.uploadUrl;
  expect((await f.t.call("DELETE", `/v1/scanner/jobs/${ids.failed}`, { key: f.w.keys.editor })).status).toBe(200);
});
afterAll(() => f.close());

const statusOf = async (id: string) => (await job(f, id)).body.status;

test("the fixture holds one job in every state", async () => {
  expect(await statusOf(ids.pending)).toBe("PENDING_UPLOAD");
  expect(await statusOf(ids.uploaded)).toBe("PENDING_UPLOAD");
  expect(await statusOf(ids.queued)).toBe("QUEUED");
  expect(await statusOf(ids.processing)).toBe("PROCESSING");
  expect(await statusOf(ids.completed)).toBe("COMPLETED");
  expect(await statusOf(ids.failed)).toBe("FAILED");
});

describe("POST /scanner/submit-archive/confirm", () => {
  const rows: [string, keyof typeof ids, number, Record<string, unknown>][] = [
    ["before the upload", "pending", 400, { error: "Archive not found in storage" }],
    ["QUEUED", "queued", 409, { error: "Job is not awaiting upload", currentStatus: "QUEUED" }],
    ["PROCESSING", "processing", 409, { error: "Job is not awaiting upload", currentStatus: "PROCESSING" }],
    ["COMPLETED", "completed", 409, { error: "Job is not awaiting upload", currentStatus: "COMPLETED" }],
    ["FAILED (cancelled)", "failed", 409, { error: "Job is not awaiting upload", currentStatus: "FAILED" }],
  ];
  for (const [name, state, status, body] of rows) {
    test(`${name} → ${status}`, async () => {
      const r = await f.t.call("POST", "/v1/scanner/submit-archive/confirm", { key: f.w.keys.editor, body: { jobId: ids[state] } });
      expect(r.status).toBe(status);
      expect(r.body).toMatchObject(body);
    });
  }
  test("unknown job → 404, another project's job → 403, missing jobId → 400, no key → 401", async () => {
    const c = (key: string | null, body: unknown) => f.t.call("POST", "/v1/scanner/submit-archive/confirm", { key, body });
    expect(await c(f.w.keys.editor, { jobId: "scan_nope" })).toMatchObject({ status: 404, body: { error: "Job not found" } });
    expect(await c(f.other.keys.editor, { jobId: ids.uploaded })).toMatchObject({ status: 403, body: { error: "Access denied" } });
    expect(await c(f.w.keys.editor, {})).toMatchObject({ status: 400, body: { error: "Invalid request" } });
    expect(await c(null, { jobId: ids.uploaded })).toMatchObject({ status: 401, body: { error: "Invalid authentication" } });
    expect(await c(f.w.keys.server, { jobId: ids.uploaded })).toMatchObject({ status: 401, body: { error: "Invalid authentication" } });
  });
  test("an upload that is not a ZIP is refused and the job stays PENDING_UPLOAD", async () => {
    const s = (await f.t.call("POST", "/v1/scanner/submit-archive", { key: f.w.keys.editor, body: { files: manifestOf(files), totalSizeBytes: 1000 } })).body;
    expect((await put(f.t, s.uploadUrl, new TextEncoder().encode("this is not a zip archive at all"))).status).toBe(200);
    const r = await f.t.call("POST", "/v1/scanner/submit-archive/confirm", { key: f.w.keys.editor, body: { jobId: s.jobId } });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("Invalid request");
    expect(await statusOf(s.jobId)).toBe("PENDING_UPLOAD");
  });
  test("PENDING_UPLOAD with the archive → QUEUED, credits reserved (estimatedCredits is the reservation)", async () => {
    const before = getProjectBalance(f.t.app.ctx, f.w.projectId).available;
    const r = await f.t.call("POST", "/v1/scanner/submit-archive/confirm", { key: f.w.keys.editor, body: { jobId: ids.uploaded } });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(["estimatedCredits", "jobId", "status", "totalFiles"]);
    expect(r.body).toMatchObject({ jobId: ids.uploaded, status: "QUEUED", totalFiles: 1 });
    const after = getProjectBalance(f.t.app.ctx, f.w.projectId).available;
    expect(before - after).toBe(r.body.estimatedCredits * 1_000_000);
    expect((await job(f, ids.uploaded)).body.estimatedCredits).toBe(r.body.estimatedCredits);
    // Confirming twice reserves once.
    const again = await f.t.call("POST", "/v1/scanner/submit-archive/confirm", { key: f.w.keys.editor, body: { jobId: ids.uploaded } });
    expect(again).toMatchObject({ status: 409, body: { currentStatus: "QUEUED" } });
    expect(getProjectBalance(f.t.app.ctx, f.w.projectId).available).toBe(after);
    // The signed URL no longer takes uploads.
    expect(await put(f.t, uploadUrlOfUploaded, zipOf(files))).toMatchObject({ status: 409, body: { error: "Job is not awaiting upload", currentStatus: "QUEUED" } });
  });
});

describe("DELETE /scanner/jobs/{jobId}", () => {
  for (const state of ["queued", "processing", "completed", "failed"] as const) {
    test(`${state.toUpperCase()} → 409 with currentStatus`, async () => {
      const r = await f.t.call("DELETE", `/v1/scanner/jobs/${ids[state]}`, { key: f.w.keys.editor });
      expect(r.status).toBe(409);
      expect(r.body).toMatchObject({ error: "Job is not awaiting upload", currentStatus: state.toUpperCase() });
    });
  }
  test("unknown → 404, another project's → 403", async () => {
    expect(await f.t.call("DELETE", "/v1/scanner/jobs/scan_nope", { key: f.w.keys.editor })).toMatchObject({ status: 404, body: { error: "Job not found" } });
    expect(await f.t.call("DELETE", `/v1/scanner/jobs/${ids.pending}`, { key: f.other.keys.editor })).toMatchObject({ status: 403, body: { error: "Access denied" } });
  });
  test("PENDING_UPLOAD → FAILED, nothing charged, the upload deleted, the URL dead", async () => {
    const u = await submitAndUpload(f, files, { confirm: false });
    expect(existsSync(uploadPath(f.t.app.config, u.jobId))).toBe(true);
    const before = getProjectBalance(f.t.app.ctx, f.w.projectId).available;
    const r = await f.t.call("DELETE", `/v1/scanner/jobs/${u.jobId}`, { key: f.w.keys.editor });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ jobId: u.jobId, status: "FAILED", message: expect.stringMatching(/cancelled.*No credits were charged/i) });
    expect(getProjectBalance(f.t.app.ctx, f.w.projectId).available).toBe(before);
    expect(existsSync(uploadPath(f.t.app.config, u.jobId))).toBe(false);
    const d = (await job(f, u.jobId)).body;
    expect(d).toMatchObject({ status: "FAILED", actualCredits: 0, creditAdjustment: 0, completedAt: null });
    expect(d.errorMessage).toMatch(/cancelled/i);
    expect(await put(f.t, u.submit.uploadUrl, zipOf(files))).toMatchObject({ status: 409, body: { currentStatus: "FAILED" } });
    expect(await put(f.t, uploadUrlOfFailed, zipOf(files))).toMatchObject({ status: 409, body: { currentStatus: "FAILED" } });
  });
});

describe("POST /scanner/commit", () => {
  for (const state of ["pending", "queued", "processing", "failed"] as const) {
    test(`${state} job → 400 Job is not completed yet`, async () => {
      const r = await f.t.call("POST", "/v1/scanner/commit", { key: f.w.keys.editor, body: { jobId: ids[state], extractionIds: ["ext_x"] } });
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("Job is not completed yet");
    });
  }
  test("bad input → 400 Invalid request; unknown job 404; another project's 403; no match 400", async () => {
    const c = (body: unknown, key = f.w.keys.editor) => f.t.call("POST", "/v1/scanner/commit", { key, body });
    expect(await c({ extractionIds: ["a"] })).toMatchObject({ status: 400, body: { error: "Invalid request" } });
    expect(await c({ jobId: ids.completed, extractionIds: [] })).toMatchObject({ status: 400, body: { error: "Invalid request" } });
    expect(await c({ jobId: ids.completed })).toMatchObject({ status: 400, body: { error: "Invalid request" } });
    expect(await c({ jobId: "scan_nope", extractionIds: ["a"] })).toMatchObject({ status: 404, body: { error: "Job not found" } });
    expect(await c({ jobId: ids.completed, extractionIds: ["a"] }, f.other.keys.editor)).toMatchObject({ status: 403, body: { error: "Access denied" } });
    expect(await c({ jobId: ids.completed, extractionIds: ["ext_unknown"] })).toMatchObject({ status: 400, body: { error: "No matching extractions found" } });
  });
  test("COMPLETED → COMPLETED with committedAt set", async () => {
    const d = (await job(f, ids.completed)).body;
    expect(d.committedAt).toBeNull();
    const r = await f.t.call("POST", "/v1/scanner/commit", { key: f.w.keys.editor, body: { jobId: ids.completed, extractionIds: [d.extractions[0].id] } });
    expect(r.status).toBe(202);
    const after = (await job(f, ids.completed)).body;
    expect(after.status).toBe("COMPLETED");
    expect(after.committedAt).toEqual(expect.any(String));
  });
});

describe("GET /scanner/jobs/{jobId} and /scanner/jobs", () => {
  test("unknown → 404, another project's → 403, no key → 401", async () => {
    expect(await f.t.call("GET", "/v1/scanner/jobs/scan_nope", { key: f.w.keys.editor })).toMatchObject({ status: 404, body: { error: "Job not found" } });
    expect(await f.t.call("GET", `/v1/scanner/jobs/${ids.completed}`, { key: f.other.keys.editor })).toMatchObject({ status: 403, body: { error: "Access denied" } });
    expect((await f.t.call("GET", "/v1/scanner/jobs", {})).status).toBe(401);
  });
  test("the list is the key's project's jobs only, newest first, in list form", async () => {
    const mine = (await f.t.call("GET", "/v1/scanner/jobs", { key: f.w.keys.editor })).body.jobs;
    const theirs = (await f.t.call("GET", "/v1/scanner/jobs", { key: f.other.keys.editor })).body.jobs;
    expect(theirs).toEqual([]);
    expect(mine.map((j: any) => j.jobId)).toContain(ids.completed);
    expect(Object.keys(mine[0]).sort()).toEqual(
      ["committedAt", "completedAt", "completedFiles", "createdAt", "failedFiles", "jobId", "startedAt", "status", "totalFiles"],
    );
    const created = mine.map((j: any) => j.createdAt);
    expect([...created].sort().reverse()).toEqual(created);
  });
  test("the list stops at the 50 most recent", async () => {
    const body = { files: manifestOf(files), totalSizeBytes: 1000 };
    for (let i = 0; i < 52; i++) {
      f.t.clock.advance(1000);
      await f.t.call("POST", "/v1/scanner/submit-archive", { key: f.other.keys.editor, body });
    }
    const jobs = (await f.t.call("GET", "/v1/scanner/jobs", { key: f.other.keys.editor })).body.jobs;
    expect(jobs.length).toBe(50);
    const total = f.t.app.db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM scan_jobs WHERE project_id = ?").get(f.other.projectId)!.n;
    expect(total).toBe(52);
  });
});

test("swagger documents every scanner route", async () => {
  const r = await f.t.call("GET", "/swagger/json");
  expect(r.status).toBe(200);
  const paths = r.body.paths;
  for (const [p, m] of [
    ["/v1/scanner/estimate", "post"],
    ["/v1/scanner/submit-archive", "post"],
    ["/v1/scanner/submit-archive/confirm", "post"],
    ["/v1/scanner/uploads/{jobId}", "put"],
    ["/v1/scanner/jobs", "get"],
    ["/v1/scanner/jobs/{jobId}", "get"],
    ["/v1/scanner/jobs/{jobId}", "delete"],
    ["/v1/scanner/commit", "post"],
    ["/v1/scanner/rescan", "post"],
  ] as const) {
    expect({ p, m, documented: Boolean(paths[p]?.[m]) }).toEqual({ p, m, documented: true });
  }
  expect(paths["/v1/scanner/submit-archive"].post.requestBody.content["application/json"].schema.properties.files).toBeDefined();
});
