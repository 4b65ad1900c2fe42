import { Elysia, t } from "elysia";
import type { ServiceContext } from "../../core/context.ts";
import { changePlan, grantCredits, showCredits } from "../../credits/creditsView.ts";
import { readRateLimits, setRateLimits } from "../../ratelimit/rateLimitSettings.ts";
import { projectParam } from "../adminGuard.ts";
import { adminDetail, adminErrors } from "./crud.ts";

const CreditsView = t.Object({ monthlyAllotment: t.Number(), allotmentRemaining: t.Number(), topUp: t.Number(), available: t.Number() });
const Limits = t.Object({ perPlayerPerMinute: t.Integer(), perProjectPerMinute: t.Integer() });
const pid = t.Object({ projectId: t.String() });

/** Credits (show, grant, plan) and rate limits of a project. */
export function operationsRoutes(ctx: ServiceContext) {
  return new Elysia({ name: "admin-operations" })
    .get("/projects/:projectId/credits", ({ params }) => showCredits(ctx, projectParam(ctx, params.projectId)), {
      params: pid,
      response: { 200: CreditsView, ...adminErrors },
      detail: adminDetail("The team's credits (in credits)"),
    })
    .post("/projects/:projectId/credits/grant", ({ params, body }) => grantCredits(ctx, projectParam(ctx, params.projectId), body.credits), {
      params: pid,
      body: t.Object({ credits: t.Number({ exclusiveMinimum: 0 }) }, { additionalProperties: false }),
      response: { 200: CreditsView, ...adminErrors },
      detail: adminDetail("Add top-up credits to the project's team"),
    })
    .put("/projects/:projectId/credits/plan", ({ params, body }) => changePlan(ctx, projectParam(ctx, params.projectId), body.monthly), {
      params: pid,
      body: t.Object({ monthly: t.Number({ minimum: 0 }) }, { additionalProperties: false }),
      response: { 200: CreditsView, ...adminErrors },
      detail: adminDetail("Set the team's monthly allotment"),
    })
    .get("/projects/:projectId/rate-limits", ({ params }) => readRateLimits(ctx, projectParam(ctx, params.projectId)), {
      params: pid,
      response: { 200: Limits, ...adminErrors },
      detail: adminDetail("Rate limits (requests per minute)"),
    })
    .patch("/projects/:projectId/rate-limits", ({ params, body }) => setRateLimits(ctx, projectParam(ctx, params.projectId), body), {
      params: pid,
      body: t.Object(
        { perPlayerPerMinute: t.Optional(t.Integer({ minimum: 1, maximum: 100000 })), perProjectPerMinute: t.Optional(t.Integer({ minimum: 1, maximum: 100000 })) },
        { additionalProperties: false },
      ),
      response: { 200: Limits, ...adminErrors },
      detail: adminDetail("Change rate limits"),
    });
}
