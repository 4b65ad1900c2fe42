import { Elysia, t } from "elysia";
import type { FeatureDeps } from "../core/feature.ts";
import { ApiError } from "../core/errors.ts";
import { projectParam, requireAdmin } from "../admin/adminGuard.ts";
import { adminDetail } from "../admin/routes/crud.ts";
import { studioSessionAllows } from "../studio/studioAuth.ts";
import { readJsonBody } from "../http/readJsonBody.ts";
import { checkBody, StartRunBody, ValidateSuiteBody } from "./loreTestModels.ts";
import { compareRuns, describeSuite, listRunViews, listSuites, prepareSuite, queueRun, requireRun, runView, runWithResults } from "./loreTestService.ts";
import { LORE_TEST_JOB } from "./loreTestJob.ts";

const pid = t.Object({ projectId: t.String() });
const run = t.Object({ projectId: t.String(), runId: t.String() });

/**
 * /admin/v1/projects/{id}/lore-tests: validate a suite, start a run (queued for the run job), follow its
 * progress, read its results, compare two runs. Admin token (or the Studio's session), like /admin/v1.
 */
export function loreTestRoutes(deps: FeatureDeps) {
  return new Elysia({ name: "lore-tests", prefix: "/admin/v1", normalize: false })
    .derive(({ headers, request }) => {
      if (headers.authorization || !studioSessionAllows(deps, deps.config.adminToken, request)) requireAdmin(deps, deps.config.adminToken, headers.authorization);
      return {};
    })
    .get("/projects/:projectId/lore-tests/suites", ({ params }) => listSuites(deps, projectParam(deps, params.projectId)), {
      params: pid,
      detail: adminDetail("The suite files the project's runs used, each as its latest run sent it"),
    })
    .post(
      "/projects/:projectId/lore-tests/validate",
      async ({ params, request }) => {
        const projectId = projectParam(deps, params.projectId);
        const body = checkBody(ValidateSuiteBody, await readJsonBody(request));
        return describeSuite(prepareSuite(deps, projectId, body.files));
      },
      { parse: "none", params: pid, detail: adminDetail("Validate lore test files against the project: every problem (400), or the cases as they will run") },
    )
    .post(
      "/projects/:projectId/lore-tests/runs",
      async ({ params, request, set }) => {
        const projectId = projectParam(deps, params.projectId);
        const body = checkBody(StartRunBody, await readJsonBody(request));
        const row = queueRun(deps, projectId, body.files, { runs: body.runs, label: body.label ?? null });
        deps.scheduler.kick(LORE_TEST_JOB);
        set.status = 202;
        return runView(row);
      },
      { parse: "none", params: pid, detail: adminDetail("Start a lore test run on a scratch copy of the project (202; the run job runs it)") },
    )
    .get("/projects/:projectId/lore-tests/runs", ({ params }) => listRunViews(deps, projectParam(deps, params.projectId)), {
      params: pid,
      detail: adminDetail("The project's lore test runs, newest first"),
    })
    .get("/projects/:projectId/lore-tests/runs/:runId", ({ params }) => runView(requireRun(deps, projectParam(deps, params.projectId), params.runId)), {
      params: run,
      detail: adminDetail("A lore test run: status and progress"),
    })
    .get("/projects/:projectId/lore-tests/runs/:runId/results", ({ params }) => runWithResults(deps, projectParam(deps, params.projectId), params.runId), {
      params: run,
      detail: adminDetail("A lore test run's cases: verdicts, every reply, trace and check"),
    })
    .get(
      "/projects/:projectId/lore-tests/compare",
      ({ params, query }) => {
        const projectId = projectParam(deps, params.projectId);
        if (!query.a || !query.b) throw new ApiError(400, "Invalid request", { details: ["a, b: the two run ids to compare are required"] });
        return compareRuns(deps, projectId, query.a, query.b);
      },
      {
        params: pid,
        query: t.Object({ a: t.Optional(t.String()), b: t.Optional(t.String()) }),
        detail: adminDetail("Compare two lore test runs: the cases whose verdict changed, with both replies and traces"),
      },
    );
}
