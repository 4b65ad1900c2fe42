import { Elysia, t } from "elysia";
import { Type } from "@sinclair/typebox";
import type { FeatureDeps } from "../../core/feature.ts";
import { invalidRequest } from "../../core/errors.ts";
import { projectParam, requireAdmin } from "../../admin/adminGuard.ts";
import { adminDetail } from "../../admin/routes/crud.ts";
import { studioSessionAllows } from "../../studio/studioAuth.ts";
import { readJsonBody } from "../../http/readJsonBody.ts";
import { isPlainObject } from "../../lore/validate/fields.ts";
import { readRecording, setRecording } from "./recordingSettings.ts";
import { acceptCandidate, candidateView, listCandidateViews, rejectCandidate } from "./candidateService.ts";

const pid = t.Object({ projectId: t.String() });
const cand = t.Object({ projectId: t.String(), candidateId: t.String() });

/** The body of PATCH …/recording (the swagger document's; recordingSettings.ts checks it, naming every problem). */
export const RecordingBody = Type.Object(
  {
    recordConversations: Type.Optional(Type.Boolean()),
    recordSampleRate: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  },
  { additionalProperties: false },
);

/**
 * /admin/v1/projects/{id}/lore-tests/recording and …/candidates: the project's consent to record real
 * conversations as candidate lore tests, and the review of what was recorded (accept → a case, reject → gone).
 * Admin token (or the Studio's session), like the other lore-test routes; a candidate of another project is 404.
 */
export function recordingRoutes(deps: FeatureDeps) {
  return new Elysia({ name: "lore-test-recording", prefix: "/admin/v1", normalize: false })
    .derive(({ headers, request }) => {
      if (headers.authorization || !studioSessionAllows(deps, deps.config.adminToken, request)) requireAdmin(deps, deps.config.adminToken, headers.authorization);
      return {};
    })
    .get("/projects/:projectId/lore-tests/recording", ({ params }) => readRecording(deps, projectParam(deps, params.projectId)), {
      params: pid,
      detail: adminDetail("Whether real conversations are recorded as candidate lore tests, and the share of sessions sampled"),
    })
    .patch(
      "/projects/:projectId/lore-tests/recording",
      async ({ params, request }) => {
        const projectId = projectParam(deps, params.projectId);
        const body = await readJsonBody(request);
        if (!isPlainObject(body)) throw invalidRequest("body: must be a JSON object");
        return setRecording(deps, projectId, body);
      },
      { parse: "none", params: pid, detail: { ...adminDetail("Turn recording on or off, set its sample rate (0–1)"), requestBody: { content: { "application/json": { schema: RecordingBody as any } } } } },
    )
    .get("/projects/:projectId/lore-tests/candidates", ({ params }) => listCandidateViews(deps, projectParam(deps, params.projectId)), {
      params: pid,
      detail: adminDetail("Recorded conversations awaiting review, newest first"),
    })
    .get("/projects/:projectId/lore-tests/candidates/:candidateId", ({ params }) => candidateView(deps, projectParam(deps, params.projectId), params.candidateId), {
      params: cand,
      detail: adminDetail("One recorded conversation"),
    })
    .post(
      "/projects/:projectId/lore-tests/candidates/:candidateId/accept",
      ({ params }) => acceptCandidate(deps, projectParam(deps, params.projectId), params.candidateId),
      { params: cand, detail: adminDetail("Accept a recorded conversation: its lore test case (YAML, suggested expectations); the candidate leaves the queue") },
    )
    .delete("/projects/:projectId/lore-tests/candidates/:candidateId", ({ params }) => rejectCandidate(deps, projectParam(deps, params.projectId), params.candidateId), {
      params: cand,
      detail: adminDetail("Reject a recorded conversation: it is deleted"),
    });
}
