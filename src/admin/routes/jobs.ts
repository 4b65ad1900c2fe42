import { Elysia, t } from "elysia";
import type { Scheduler } from "../../jobs/Scheduler.ts";
import { JobRuns } from "../../jobs/JobRuns.ts";
import { notFound } from "../../core/errors.ts";
import { adminDetail } from "./crud.ts";

/** Background jobs: list, trigger by name (202 with a run id), and a run's state. */
export function jobRoutes(scheduler: Scheduler) {
  const runs = new JobRuns(scheduler);
  return new Elysia({ name: "admin-jobs" })
    .get("/jobs", () => ({ jobs: scheduler.list() }), { detail: adminDetail("List background jobs") })
    .post(
      "/jobs/:name/run",
      ({ params, set }) => {
        const run = runs.start(params.name);
        if (!run) throw notFound("Job");
        set.status = 202;
        set.headers.location = `/admin/v1/jobs/runs/${run.runId}`;
        return run;
      },
      {
        params: t.Object({ name: t.String() }),
        detail: adminDetail("Start a background job now: 202 with a run id at once; poll GET /admin/v1/jobs/runs/{runId}"),
      },
    )
    .get(
      "/jobs/runs/:runId",
      ({ params }) => {
        const run = runs.get(params.runId);
        if (!run) throw notFound("Job run");
        return run;
      },
      { params: t.Object({ runId: t.String() }), detail: adminDetail("A triggered run: running, completed (with its result) or failed (with its error)") },
    );
}
