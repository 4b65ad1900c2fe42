import { Elysia, t } from "elysia";
import type { InteractDeps } from "../../npc/interactService.ts";
import type { UsageLog } from "../../ops/usageLog.ts";
import { ApiError, invalidRequest } from "../../core/errors.ts";
import { validateInteract } from "../../npc/validateInteract.ts";
import { projectParam } from "../adminGuard.ts";
import { adminDetail, adminErrors } from "./crud.ts";
import { projectOverview } from "../../studio/services/overview.ts";
import { ledgerMovements, usageSeries } from "../../studio/services/usage.ts";
import { documentIndexStatus, knowledgeMatrix } from "../../studio/services/visibility.ts";
import { checkProjectCondition, simulateKnowledge, type SimulatedState } from "../../studio/services/stateSimulator.ts";
import { readJsonBody } from "../../http/readJsonBody.ts";
import { approveMatching, editExtraction, reviewExtractions, type ReviewFilter } from "../../studio/services/scanReview.ts";
import { exportPackText, importPackText } from "../../studio/services/packs.ts";
import { playgroundStream } from "../../studio/services/playground.ts";
import { groupReviewRoutes } from "../../studio/groupReviewRoutes.ts";

const pid = t.Object({ projectId: t.String() });
const jobParams = t.Object({ projectId: t.String(), jobId: t.String() });

const ReviewQuery = t.Object(
  {
    minConfidence: t.Optional(t.String()),
    tag: t.Optional(t.String()),
    format: t.Optional(t.String()),
    sourceFile: t.Optional(t.String()),
    search: t.Optional(t.String()),
    group: t.Optional(t.String()),
    kind: t.Optional(t.String()),
    limit: t.Optional(t.String()),
    offset: t.Optional(t.String()),
  },
  { additionalProperties: false },
);
const ApproveBody = t.Object(
  {
    minConfidence: t.Optional(t.Number({ minimum: 0, maximum: 1 })),
    tag: t.Optional(t.String({ maxLength: 100 })),
    format: t.Optional(t.String({ maxLength: 20 })),
    kind: t.Optional(t.String({ maxLength: 20 })),
    sourceFile: t.Optional(t.String({ maxLength: 1000 })),
    search: t.Optional(t.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);
const ExtractionEditBody = t.Object(
  {
    title: t.Optional(t.String({ maxLength: 200 })),
    tags: t.Optional(t.Array(t.String({ maxLength: 100 }), { maxItems: 50 })),
    location: t.Optional(t.Union([t.String({ maxLength: 200 }), t.Null()])),
    content: t.Optional(t.String({ maxLength: 2_000_000 })),
  },
  { additionalProperties: false },
);
const PackImportBody = t.Object(
  { text: t.String({ maxLength: 20_000_000 }), fileName: t.String({ minLength: 1, maxLength: 255 }), dryRun: t.Optional(t.Boolean()) },
  { additionalProperties: false },
);

function intParam(name: string, raw: string | undefined, def: number, min: number, max: number): number {
  if (raw === undefined || raw === "") return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw invalidRequest(`${name}: must be an integer from ${min} to ${max}`);
  return n;
}

function reviewFilter(q: { minConfidence?: string; tag?: string; format?: string; sourceFile?: string; search?: string; group?: string; kind?: string }): ReviewFilter {
  let minConfidence: number | undefined;
  if (q.minConfidence !== undefined && q.minConfidence !== "") {
    minConfidence = Number(q.minConfidence);
    if (!Number.isFinite(minConfidence) || minConfidence < 0 || minConfidence > 1) throw invalidRequest("minConfidence: must be a number from 0 to 1");
  }
  return {
    minConfidence,
    tag: q.tag || undefined,
    format: q.format || undefined,
    sourceFile: q.sourceFile || undefined,
    search: q.search || undefined,
    group: q.group || undefined,
    kind: q.kind || undefined,
  };
}

/**
 * Admin endpoints the Studio needs beyond authoring CRUD: the project
 * overview, usage series, ledger movements, who-knows-what, scan review
 * (edit before commit, bulk approve), pack import with dry run and export,
 * and the playground's traced, streamed turn.
 */
export function studioAdminRoutes(deps: InteractDeps & { usage: UsageLog }) {
  const ctx = deps;
  return [
    new Elysia({ name: "admin-studio-insights" })
      .get("/projects/:projectId/overview", ({ params }) => projectOverview(ctx, projectParam(ctx, params.projectId)), {
        params: pid,
        detail: adminDetail("Project overview: counts, documents still indexing, interactions in the last 24 h, credits, model state"),
      })
      .get("/projects/:projectId/usage", ({ params, query }) => usageSeries(ctx, deps.usage, projectParam(ctx, params.projectId), query.range ?? "24h"), {
        params: pid,
        query: t.Object({ range: t.Optional(t.String({ description: "24h (hourly), 7d (6-hourly) or 30d (daily)" })) }),
        detail: adminDetail("Usage over time: interactions and credits (ledger), tokens and latency (this process's recent interactions)"),
      })
      .get(
        "/projects/:projectId/ledger",
        ({ params, query }) => ledgerMovements(ctx, projectParam(ctx, params.projectId), intParam("limit", query.limit, 50, 1, 500)),
        { params: pid, query: t.Object({ limit: t.Optional(t.String()) }), detail: adminDetail("The credit ledger's recent movements for the project") },
      )
      .get(
        "/projects/:projectId/documents/:id/index-status",
        ({ params }) => documentIndexStatus(ctx, projectParam(ctx, params.projectId), params.id),
        { params: t.Object({ projectId: t.String(), id: t.String() }), detail: adminDetail("A document's indexing status, with the reason when it FAILED") },
      )
      .get("/projects/:projectId/knowledge-matrix", ({ params }) => knowledgeMatrix(ctx, projectParam(ctx, params.projectId)), {
        params: pid,
        detail: adminDetail("Who knows what: minds × tags, and for each document the minds that can see it"),
      })
      .post(
        "/projects/:projectId/knowledge-simulate",
        async ({ params, request }) => simulateKnowledge(ctx, projectParam(ctx, params.projectId), (await readJsonBody(request)) as SimulatedState),
        {
          parse: "none",
          params: pid,
          detail: adminDetail(
            "Who knows what for a given world and player state ({world, player, trust?, turn?}; nothing stored or generated): per mind, each document it may know now and why (tag, condition, timer), its conditional knowledge and conditional hints and restrictions",
          ),
        },
      )
      .post(
        "/projects/:projectId/conditions/check",
        ({ params, body }) => checkProjectCondition(ctx, projectParam(ctx, params.projectId), body.condition),
        {
          params: pid,
          body: t.Object({ condition: t.String({ maxLength: 1000 }) }),
          detail: adminDetail("A condition's problems against the project's declared state keys (parse, functions, types), each with its character offset"),
        },
      ),
    new Elysia({ name: "admin-studio-scan-review" })
      .get(
        "/projects/:projectId/scan-jobs/:jobId/extractions",
        ({ params, query }) =>
          reviewExtractions(ctx, projectParam(ctx, params.projectId), params.jobId, reviewFilter(query), {
            limit: intParam("limit", query.limit, 50, 1, 500),
            offset: intParam("offset", query.offset, 0, 0, 10_000_000),
          }),
        { params: jobParams, query: ReviewQuery, detail: adminDetail("A scan job's extractions for review: full text, filters, groups by source file and title") },
      )
      .patch(
        "/projects/:projectId/scan-jobs/:jobId/extractions/:extractionId",
        ({ params, body }) => editExtraction(ctx, projectParam(ctx, params.projectId), params.jobId, params.extractionId, body),
        {
          params: t.Object({ projectId: t.String(), jobId: t.String(), extractionId: t.String() }),
          body: ExtractionEditBody,
          detail: adminDetail("Edit an extraction's title, tags, location or text before it is committed"),
        },
      )
      .post("/projects/:projectId/scan-jobs/:jobId/approve", ({ params, body }) => approveMatching(ctx, projectParam(ctx, params.projectId), params.jobId, body), {
        params: jobParams,
        body: ApproveBody,
        detail: adminDetail("Bulk approve: commit every extraction matching the filter (as POST /v1/scanner/commit)"),
      }),
    groupReviewRoutes(ctx),
    new Elysia({ name: "admin-studio-packs" })
      .post("/projects/:projectId/packs/import", ({ params, body }) => importPackText(ctx, projectParam(ctx, params.projectId), body), {
        params: pid,
        body: PackImportBody,
        response: { ...adminErrors },
        detail: adminDetail("Import a lore pack's text (YAML or JSON) into the project; dryRun reports what would change and writes nothing"),
      })
      .get(
        "/projects/:projectId/packs/export",
        ({ params, query }) => {
          const out = exportPackText(ctx, projectParam(ctx, params.projectId), query.format ?? "yaml");
          return new Response(out.text, {
            headers: { "content-type": `${out.type}; charset=utf-8`, "content-disposition": `attachment; filename="${out.fileName}"` },
          });
        },
        { params: pid, query: t.Object({ format: t.Optional(t.String()) }), detail: adminDetail("Export the project as a lore pack download (yaml or json)") },
      ),
    new Elysia({ name: "admin-studio-playground" }).post(
      "/projects/:projectId/playground",
      async ({ params, request }) => {
        const projectId = projectParam(ctx, params.projectId);
        let raw: unknown;
        try {
          raw = JSON.parse(await request.text());
        } catch {
          throw new ApiError(400, "Invalid request", { details: ["body: malformed JSON"] });
        }
        return playgroundStream(deps, projectId, validateInteract(raw), request.signal);
      },
      {
        parse: "none",
        params: pid,
        detail: adminDetail("A playground turn: /v1/npc/interact's interaction streamed as SSE, ending with a `done` event holding the reply and its trace"),
      },
    ),
  ];
}
