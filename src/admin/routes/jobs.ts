import { Elysia, t } from "elysia";
import type { Scheduler } from "../../jobs/Scheduler.ts";
import { notFound } from "../../core/errors.ts";
import { adminDetail } from "./crud.ts";

/** Background jobs: list and trigger by name. */
export function jobRoutes(scheduler: Scheduler) {
  return new Elysia({ name: "admin-jobs" })
    .get("/jobs", () => ({ jobs: scheduler.list() }), { detail: adminDetail("List background jobs") })
    .post(
      "/jobs/:name/run",
      async ({ params }) => {
        const status = await scheduler.trigger(params.name);
        if (!status) throw notFound("Job");
        return status;
      },
      { params: t.Object({ name: t.String() }), detail: adminDetail("Run a background job now and wait for it") },
    );
}
