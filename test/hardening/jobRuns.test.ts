/**
 * A job triggered over HTTP that runs longer than the idle timeout used to get
 * no response at all. The trigger answers 202 with a run id at once; the run's state is polled.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { ADMIN_TOKEN, startHardeningApp } from "./hardeningApp.ts";
import { head, rawRequest } from "./rawHttp.ts";

setDefaultTimeout(60_000);
let h: Awaited<ReturnType<typeof startHardeningApp>>;
beforeAll(async () => {
  h = await startHardeningApp({ idleTimeoutSeconds: 1 });
  let calls = 0;
  h.app.scheduler.register({
    name: "slow-test-job",
    schedule: "0 0 1 1 *",
    run: async () => {
      await Bun.sleep(6000); // past the 1 s idle timeout (Bun's idle check ticks every ~4 s)
      if (++calls === 2) throw new Error("the second run fails");
      return { slept: 6000 };
    },
  });
});
afterAll(() => h.close());

const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };

test("POST /admin/v1/jobs/{name}/run: 202 at once with a run id; the run completes, then a failing run says why", async () => {
  for (const want of [
    { state: "completed", result: { slept: 6000 }, error: null },
    { state: "failed", result: null, error: "the second run fails" },
  ]) {
    // "at once": the answer says the run is still running (the job sleeps 6 s), which no time bound needs to show
    const started = await rawRequest(h.port, head("POST", "/admin/v1/jobs/slow-test-job/run", auth));
    expect(started?.status).toBe(202);
    expect(started?.json).toMatchObject({ job: "slow-test-job", state: "running", finishedAt: null });
    expect(started?.headers.location).toBe(`/admin/v1/jobs/runs/${started?.json.runId}`);

    let run: any;
    for (;;) {
      run = (await rawRequest(h.port, head("GET", `/admin/v1/jobs/runs/${started?.json.runId}`, auth)))?.json;
      if (run.state !== "running") break;
      await Bun.sleep(250);
    }
    expect(run).toMatchObject({ runId: started?.json.runId, ...want });
    expect(new Date(run.finishedAt).getTime() - new Date(run.startedAt).getTime()).toBeGreaterThanOrEqual(5900);
  }
});

test("unknown job and unknown run are 404", async () => {
  expect((await rawRequest(h.port, head("POST", "/admin/v1/jobs/nope/run", auth)))?.json).toEqual({ error: "Job not found" });
  expect((await rawRequest(h.port, head("GET", "/admin/v1/jobs/runs/run_nope", auth)))?.json).toEqual({ error: "Job run not found" });
});
