import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Cron } from "croner";
import { SCAN_WORKER_JOB } from "../../../src/scanner/worker/runScanWorker.ts";
import { job, LORE, scanFixture, submitAndUpload, type ScanFixture } from "./scanSupport.ts";

let f: ScanFixture;
beforeAll(async () => {
  f = await scanFixture();
  f.t.app.scheduler.start();
});
afterAll(() => f.close());

/** The scan worker's own schedule (every 2 s), reached inside the scheduler: the test pauses it. */
const workerCron = () => (f.t.app.scheduler as unknown as { jobs: Map<string, { cron: Cron | null }> }).jobs.get(SCAN_WORKER_JOB)!.cron!;

// The worker's own schedule is every 2 s; a small project's scan takes a fraction of that, so waiting for the tick
// was most of its time. With the schedule paused, only the confirm's kick can start the scan: that it starts at all
// is the proof, whatever the machine's pace (racing the next tick instead failed on a loaded box).
test("a confirmed upload starts its scan without waiting for the worker's next tick", async () => {
  const cron = workerCron();
  await f.t.app.scheduler.trigger(SCAN_WORKER_JOB); // nothing left queued from the start
  cron.pause();
  try {
    const { jobId } = await submitAndUpload(f, [{ path: "lore/founding.md", data: LORE.md }]);
    let status = (await job(f, jobId)).body.status;
    while (status === "QUEUED") {
      await Bun.sleep(10);
      status = (await job(f, jobId)).body.status;
    }
    expect(["PROCESSING", "COMPLETED"]).toContain(status);
    expect(cron.isStopped()).toBe(false);
    expect(cron.isRunning()).toBe(false); // still paused: no tick could have run it
  } finally {
    cron.resume();
  }
});
