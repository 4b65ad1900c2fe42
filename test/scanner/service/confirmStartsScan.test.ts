import { afterAll, beforeAll, expect, test } from "bun:test";
import { SCAN_WORKER_JOB } from "../../../src/scanner/worker/runScanWorker.ts";
import { job, LORE, scanFixture, submitAndUpload, type ScanFixture } from "./scanSupport.ts";

let f: ScanFixture;
beforeAll(async () => {
  f = await scanFixture();
  f.t.app.scheduler.start();
});
afterAll(() => f.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const nextTickAt = () => Date.parse(f.t.app.scheduler.list().find((j) => j.name === SCAN_WORKER_JOB)!.nextRunAt!);

// The worker's own schedule is every 2 s; a small project's scan takes a fraction of that, so waiting
// for the tick was most of its time. The scan must start before the next scheduled tick could have
// started it: the deadline is read after confirm returns, so a tick cannot be mistaken for the kick.
test("a confirmed upload starts its scan without waiting for the worker's next tick", async () => {
  let decided = false;
  for (let attempt = 0; attempt < 5 && !decided; attempt++) {
    // Start just after a scheduled tick, so that the next one is almost 2 s away.
    while (nextTickAt() - Date.now() < 1500) await sleep(20);
    const { jobId } = await submitAndUpload(f, [{ path: `lore/founding-${attempt}.md`, data: LORE.md }]);
    const deadline = nextTickAt();
    // A confirm that took until close to the next tick proves nothing either way: try again.
    if (deadline - Date.now() < 400) continue;
    decided = true;
    let status = (await job(f, jobId)).body.status;
    while (status === "QUEUED" && Date.now() < deadline - 100) {
      await sleep(10);
      status = (await job(f, jobId)).body.status;
    }
    expect(Date.now()).toBeLessThan(deadline);
    expect(status).not.toBe("QUEUED");
  }
  expect(decided).toBe(true);
});
