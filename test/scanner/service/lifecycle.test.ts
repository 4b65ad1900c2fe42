import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { App } from "../../../src/app/App.ts";
import { ManualClock } from "../../../src/core/clock.ts";
import { getProjectBalance } from "../../../src/credits/ledger.ts";
import { silentLogger } from "../../../src/ops/logger.ts";
import { CONFIRMED_JOB_EXPIRED } from "../../../src/scanner/sweeps.ts";
import { uploadPath } from "../../../src/scanner/uploadStore.ts";
import { dataPaths } from "../../../src/config/config.ts";
import { join } from "node:path";
import { testConfig, tempDir } from "../../support/testApp.ts";
import { buildWorld, type World } from "../../support/world.ts";
import { job, LORE, submitAndUpload, type ScanFixture } from "./scanSupport.ts";

/** An app over a data dir that outlives it, so a test can stop the server and start it again. */
async function boot(dir: string, clock: ManualClock): Promise<ScanFixture["t"]> {
  const app = await App.create(testConfig(dir), { clock, logger: silentLogger });
  return {
    app,
    dir,
    clock,
    async call(method, path, opts = {}) {
      const headers: Record<string, string> = { ...(opts.headers ?? {}) };
      if (opts.key) headers.authorization = `Bearer ${opts.key}`;
      const body = opts.body !== undefined ? JSON.stringify(opts.body) : undefined;
      if (body) headers["content-type"] = "application/json";
      const res = await app.handle(new Request(`http://localhost${path}`, { method, headers, body }));
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
    },
    close: () => app.stop(),
  };
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function world(): Promise<{ f: ScanFixture; dir: string; clock: ManualClock }> {
  const dir = tempDir();
  dirs.push(dir);
  const clock = new ManualClock(new Date("2026-03-10T10:00:00.000Z"));
  const t = await boot(dir, clock);
  const w = buildWorld(t.app.ctx as never, "Thornhaven", { index: "none" });
  const other: World = w;
  return { f: { t, w, other, close: () => t.close() }, dir, clock };
}

const files = Array.from({ length: 60 }, (_, i) => ({ path: `lore/chapter-${i}.md`, data: `# Chapter ${i}\n\n${LORE.md}\nIn year ${1000 + i} the river rose ${i} feet.` }));
const balance = (f: ScanFixture) => getProjectBalance(f.t.app.ctx, f.w.projectId).available;
const row = (f: ScanFixture, id: string) =>
  f.t.app.db.query<{ status: string; attempts: number }, [string]>("SELECT status, attempts FROM scan_jobs WHERE id = ?").get(id)!;

describe("restart safety", () => {
  test("a shutdown mid-job puts it back in the queue; the next server finishes it", async () => {
    const { f, dir, clock } = await world();
    const { jobId } = await submitAndUpload(f, files);
    const tick = f.t.app.scheduler.trigger("scan-worker");
    for (;;) {
      const b = (await job(f, jobId)).body;
      if (b.status === "PROCESSING" && b.completedFiles > 0) break;
      await new Promise((r) => setImmediate(r));
    }
    await f.t.app.stop();
    await tick;
    const t2 = await boot(dir, clock);
    const f2 = { ...f, t: t2 };
    expect(row(f2, jobId)).toEqual({ status: "QUEUED", attempts: 0 });
    await t2.app.scheduler.trigger("scan-worker");
    const d = (await job(f2, jobId)).body;
    expect(d).toMatchObject({ status: "COMPLETED", completedFiles: 60, failedFiles: 0 });
    expect(row(f2, jobId).attempts).toBe(1);
    // Nothing doubled by the interrupted attempt.
    expect(d.extractions.length).toBe(60);
    expect(new Set(d.extractions.map((e: any) => e.sourceFiles.join())).size).toBe(60);
    await t2.app.stop();
  });

  test("a crash mid-job (left PROCESSING) is re-queued at boot and redone from scratch", async () => {
    const { f, dir, clock } = await world();
    const before = balance(f);
    const { jobId } = await submitAndUpload(f, files.slice(0, 5));
    // What a killed process leaves behind: PROCESSING, one attempt used, partial results.
    f.t.app.db.query("UPDATE scan_jobs SET status = 'PROCESSING', attempts = 1, started_at = ?, completed_files = 3 WHERE id = ?").run(clock.now().toISOString(), jobId);
    f.t.app.db
      .query("INSERT INTO scan_extractions (id, job_id, ordinal, title, confidence, content) VALUES ('ext_partial', ?, 0, 'Half done', 0.5, 'partial')")
      .run(jobId);
    await f.t.app.stop();
    clock.advance(60_000);
    const t2 = await boot(dir, clock);
    const f2 = { ...f, t: t2 };
    const r = await t2.app.scheduler.trigger("scan-worker");
    expect(r!.lastResult).toMatchObject({ requeued: 1, COMPLETED: 1 });
    const d = (await job(f2, jobId)).body;
    expect(d).toMatchObject({ status: "COMPLETED", completedFiles: 5 });
    expect(d.extractions.map((e: any) => e.id)).not.toContain("ext_partial");
    expect(row(f2, jobId).attempts).toBe(2);
    const bytes = files.slice(0, 5).reduce((s, x) => s + x.data.length, 0);
    expect(before - balance(f2)).toBe(bytes);
    await t2.app.stop();
  });

  test("a job that keeps crashing the worker is failed after 3 attempts, refunded", async () => {
    const { f } = await world();
    const before = balance(f);
    const { jobId } = await submitAndUpload(f, files.slice(0, 2));
    f.t.app.db.query("UPDATE scan_jobs SET status = 'PROCESSING', attempts = 3 WHERE id = ?").run(jobId);
    const r = await f.t.app.scheduler.trigger("scan-worker");
    expect(r!.lastResult).toMatchObject({ requeued: 0, failed: 1 });
    const d = (await job(f, jobId)).body;
    expect(d.status).toBe("FAILED");
    expect(d.errorMessage).toMatch(/interrupted 3 times/);
    expect(d.creditAdjustment).toBe(d.estimatedCredits);
    expect(balance(f)).toBe(before);
    expect(existsSync(uploadPath(f.t.app.config, jobId))).toBe(false);
    await f.close();
  });
});

describe("expiry sweeps (scan-expiry)", () => {
  test("unconfirmed jobs fail 45 minutes after creation, their upload deleted, nothing charged", async () => {
    const { f, clock } = await world();
    const before = balance(f);
    const uploaded = await submitAndUpload(f, files.slice(0, 1), { confirm: false });
    clock.advance(44 * 60_000);
    await f.t.app.scheduler.trigger("scan-expiry");
    expect((await job(f, uploaded.jobId)).body.status).toBe("PENDING_UPLOAD");
    clock.advance(60_000 + 1);
    const r = await f.t.app.scheduler.trigger("scan-expiry");
    expect(r!.lastResult).toMatchObject({ uploadWindowsExpired: 1 });
    const d = (await job(f, uploaded.jobId)).body;
    expect(d).toMatchObject({ status: "FAILED", errorMessage: "Upload window expired", actualCredits: 0, creditAdjustment: 0 });
    expect(existsSync(uploadPath(f.t.app.config, uploaded.jobId))).toBe(false);
    expect(balance(f)).toBe(before);
    await f.close();
  });

  test("confirmed jobs not completed 24 h after confirm fail with the reservation refunded", async () => {
    const { f, clock } = await world();
    const before = balance(f);
    const queued = (await submitAndUpload(f, files.slice(0, 1))).jobId;
    const stuck = (await submitAndUpload(f, files.slice(1, 2))).jobId;
    f.t.app.db.query("UPDATE scan_jobs SET status = 'PROCESSING', attempts = 1 WHERE id = ?").run(stuck);
    expect(balance(f)).toBeLessThan(before);
    clock.advance(24 * 3600_000 - 1000);
    expect((await f.t.app.scheduler.trigger("scan-expiry"))!.lastResult).toMatchObject({ confirmedJobsExpired: 0 });
    clock.advance(2000);
    // The worker leaves expired jobs to the sweep.
    await f.t.app.scheduler.trigger("scan-worker");
    expect((await job(f, queued)).body.status).toBe("QUEUED");
    const r = await f.t.app.scheduler.trigger("scan-expiry");
    expect(r!.lastResult).toMatchObject({ confirmedJobsExpired: 2 });
    for (const id of [queued, stuck]) {
      const d = (await job(f, id)).body;
      expect(d).toMatchObject({ status: "FAILED", errorMessage: CONFIRMED_JOB_EXPIRED, actualCredits: 0 });
      expect(d.creditAdjustment).toBe(d.estimatedCredits);
      expect(d.adjustmentMessage).toMatch(/refunded/);
      expect(d.completedAt).toEqual(expect.any(String));
    }
    expect(balance(f)).toBe(before);
    await f.close();
  });

  test("leftover files of ended jobs and unknown jobs are removed; live uploads are kept", async () => {
    const { f } = await world();
    const live = await submitAndUpload(f, files.slice(0, 1), { confirm: false });
    const dir = dataPaths(f.t.app.config).uploads;
    writeFileSync(join(dir, "scan_gone.zip"), "x");
    writeFileSync(join(dir, "scan_gone.abc123.part"), "x");
    const r = await f.t.app.scheduler.trigger("scan-expiry");
    expect(r!.lastResult).toMatchObject({ orphanUploadsRemoved: 2 });
    expect(existsSync(uploadPath(f.t.app.config, live.jobId))).toBe(true);
    await f.close();
  });
});
