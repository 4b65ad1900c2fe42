import { Elysia, t } from "elysia";
import type { ScannerContext } from "../core/context.ts";
import { projectParam } from "../admin/adminGuard.ts";
import { adminDetail, adminErrors } from "../admin/routes/crud.ts";
import { reviewGroups } from "./services/groupReview.ts";

/** What a reviewer picks (the shape of POST /v1/scanner/commit's `accept`/`reject`). */
const Selection = t.Object(
  {
    groups: t.Optional(t.Array(t.String({ maxLength: 1000 }), { maxItems: 10_000 })),
    files: t.Optional(t.Array(t.String({ maxLength: 1000 }), { maxItems: 10_000 })),
    folders: t.Optional(t.Array(t.String({ maxLength: 1000 }), { maxItems: 1_000 })),
    kinds: t.Optional(t.Array(t.String({ maxLength: 20 }), { maxItems: 20 })),
  },
  { additionalProperties: false },
);

const GroupReviewBody = t.Object(
  {
    hide: t.Optional(Selection),
    kind: t.Optional(t.String({ maxLength: 20 })),
    minConfidence: t.Optional(t.Number({ minimum: 0, maximum: 1 })),
    search: t.Optional(t.String({ maxLength: 200 })),
    openOnly: t.Optional(t.Boolean()),
    limit: t.Optional(t.Integer({ minimum: 1, maximum: 1000 })),
    offset: t.Optional(t.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);

/**
 * The Studio's per-group scan review. A query with a body: the reviewer's rejected selection can
 * hold thousands of groups, more than a URL carries; it reads and writes nothing else.
 */
export function groupReviewRoutes(ctx: ScannerContext) {
  return new Elysia({ name: "admin-studio-group-review" }).post(
    "/projects/:projectId/scan-jobs/:jobId/review-groups",
    ({ params, body }) => reviewGroups(ctx, projectParam(ctx, params.projectId), params.jobId, body),
    {
      params: t.Object({ projectId: t.String(), jobId: t.String() }),
      body: GroupReviewBody,
      response: { 400: adminErrors[400], 401: adminErrors[401], 404: adminErrors[404] },
      detail: adminDetail(
        "Per-group scan review: groups with open/hidden/committed counts, kinds, folders and files to accept or reject at once, knowledge suggestions matched to minds, skipped content by reason. `hide` is the Studio's rejected selection.",
      ),
    },
  );
}
