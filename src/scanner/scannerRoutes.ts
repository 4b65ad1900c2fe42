import { Elysia, t } from "elysia";
import type { AppContext, InteractDeps } from "../core/context.ts";
import { ApiError } from "../core/errors.ts";
import { requireEditor } from "../auth/authGuards.ts";
import { ErrorBody, editorErrors } from "../http/commonSchemas.ts";
import { readJsonBody } from "../http/readJsonBody.ts";
import { microToCredits } from "../credits/prices.ts";
import { acceptUpload } from "./acceptUpload.ts";
import { cancelJob } from "./cancel.ts";
import { commitExtractions } from "./commit.ts";
import { confirmUpload } from "./confirm.ts";
import { estimateScan } from "./estimate.ts";
import { jobDetailStream, listJobs } from "./readJobs.ts";
import { rescan } from "./rescan.ts";
import { detailReview } from "./reviewGroups.ts";
import { submitArchive } from "./submitArchive.ts";
import { SCAN_WORKER_JOB } from "./worker/runScanWorker.ts";
import { warmExtractionThread } from "./worker/idleThread.ts";
import {
  CancelResponse,
  CommitBody,
  CommitResponse,
  ConfirmResponse,
  EstimateBody,
  EstimateResponse,
  JobDetailQuery,
  JobDetailResponse,
  JobIdBody,
  JobListResponse,
  RescanBody,
  RescanResponse,
  SubmitBody,
  SubmitResponse,
  UploadResponse,
} from "./scannerSchemas.ts";

const detail = (summary: string, description?: string) => ({ tags: ["Scanner (Editor Key)"], summary, description, security: [{ bearer: [] }] });
const errors = (...codes: number[]) => Object.fromEntries(codes.map((c) => [c, ErrorBody]));

/** /v1/scanner/* (Editor Key) and the signed upload endpoint behind uploadUrl. */
export function scannerRoutes(ctx: AppContext & Pick<InteractDeps, "scheduler">) {
  // No API key here: the URL's HMAC signature is the credential (DESIGN.md "Scanner").
  const uploads = new Elysia({ name: "scanner-uploads", prefix: "/scanner" }).put(
    "/uploads/:jobId",
    async ({ request, params, query, set }) => {
      const r = await acceptUpload(ctx, {
        jobId: params.jobId,
        expires: query.expires,
        signature: query.signature,
        contentType: request.headers.get("content-type"),
        contentLength: request.headers.get("content-length"),
        body: request.body,
      });
      set.status = 200;
      return r;
    },
    {
      // The body streams to disk: never parsed, never buffered.
      parse: "none",
      params: t.Object({ jobId: t.String() }),
      query: t.Object({ expires: t.Optional(t.String()), signature: t.Optional(t.String()) }, { additionalProperties: true }),
      response: { 200: UploadResponse, ...errors(400, 403, 404, 409, 413) },
      detail: {
        tags: ["Scanner (Editor Key)"],
        summary: "Upload the scan archive (the signed uploadUrl)",
        description:
          "HTTP PUT of the ZIP with `Content-Type: application/zip`. No API key: the `expires` and `signature` query parameters are the credential (403 `Access denied` when wrong or expired). 409 when the job no longer awaits an upload; 413 `Archive too large` when the body passes the declared totalSizeBytes or 200 MB. Uploading again before confirm replaces the archive.",
      },
    },
  );

  const editor = new Elysia({ name: "scanner-routes", prefix: "/scanner" })
    // derive runs before schema validation: an unauthenticated caller learns nothing about parameters.
    .derive(({ headers }) => ({ principal: requireEditor(ctx, headers.authorization) }))
    .post(
      "/estimate",
      ({ principal, body }) => {
        const e = estimateScan(ctx, principal.projectId, body.files);
        return {
          estimatedMicrocredits: e.estimatedMicro,
          estimatedCredits: microToCredits(e.estimatedMicro),
          reservedMicrocredits: e.reservedMicro,
          reservedCredits: microToCredits(e.reservedMicro),
          availableCredits: microToCredits(e.availableMicro),
          perFile: e.perFile,
          estimateType: e.estimateType,
          message: e.message,
        };
      },
      { body: EstimateBody, response: { 200: EstimateResponse, ...editorErrors }, detail: detail("Estimate the credits of a scan") },
    )
    .post(
      "/submit-archive",
      async ({ principal, request, set }) => {
        const r = submitArchive(ctx, principal.projectId, await readJsonBody(request, "Invalid manifest"));
        // A scan is coming: its extraction thread loads while the archive uploads.
        if (r.status === "PENDING_UPLOAD") warmExtractionThread();
        set.status = 202;
        return r;
      },
      {
        parse: "none",
        response: { 202: SubmitResponse, ...editorErrors, 402: ErrorBody },
        detail: {
          ...detail(
            "Describe the archive; get a signed upload URL",
            "400 `Invalid manifest` (details name every problem), `Archive too large`, `Invalid file types in manifest` (rejectedFiles, allowedExtensions); 402 when the balance cannot cover the reservation. Nothing is charged yet.",
          ),
          requestBody: { required: true, content: { "application/json": { schema: SubmitBody as any } } },
        },
      },
    )
    .post(
      "/submit-archive/confirm",
      async ({ principal, body }) => {
        const confirmed = await confirmUpload(ctx, principal.projectId, body.jobId);
        warmExtractionThread();
        // The worker's own tick comes every 2 s: a small project's whole scan is shorter than that wait.
        ctx.scheduler?.kick(SCAN_WORKER_JOB);
        return confirmed;
      },
      {
        body: JobIdBody,
        response: { 200: ConfirmResponse, ...editorErrors, ...errors(402, 403, 404, 409) },
        detail: detail("Confirm the upload: reserve credits and queue the scan"),
      },
    )
    .get("/jobs", ({ principal }) => ({ jobs: listJobs(ctx, principal.projectId) }), {
      response: { 200: JobListResponse, ...editorErrors },
      detail: detail("The project's 50 most recent scan jobs"),
    })
    // Streamed from SQLite a page at a time (a large scan has hundreds of thousands of extractions);
    // the JSON is the JobDetailResponse shape, which the tests hold it to.
    .get("/jobs/:jobId", ({ principal, params, query }) =>
      new Response(jobDetailStream(ctx, principal.projectId, params.jobId, detailReview(query)), { headers: { "content-type": "application/json" } }), {
      params: t.Object({ jobId: t.String() }),
      query: JobDetailQuery,
      response: { 200: JobDetailResponse, ...editorErrors, ...errors(403, 404) },
      detail: detail("One scan job, detail form (poll it for progress)"),
    })
    .delete("/jobs/:jobId", ({ principal, params }) => cancelJob(ctx, principal.projectId, params.jobId), {
      params: t.Object({ jobId: t.String() }),
      response: { 200: CancelResponse, ...editorErrors, ...errors(403, 404, 409) },
      detail: detail("Cancel a job that has not been confirmed"),
    })
    .post(
      "/commit",
      ({ principal, body, set }) => {
        const r = commitExtractions(ctx, principal.projectId, body.jobId, body.extractionIds, { accept: body.accept, reject: body.reject });
        set.status = 202;
        return r;
      },
      {
        body: CommitBody,
        response: { 202: CommitResponse, ...editorErrors, ...errors(403, 404) },
        detail: detail("Turn approved extractions into Lore Documents (indexed in the background)"),
      },
    )
    .post("/rescan", ({ principal, body }) => rescan(ctx, principal.projectId, body.files), {
      body: RescanBody,
      response: { 200: RescanResponse, ...editorErrors },
      detail: detail("Compare file hashes with the latest completed scan"),
    });

  return new Elysia({ name: "scanner" }).use(uploads).use(editor);
}
