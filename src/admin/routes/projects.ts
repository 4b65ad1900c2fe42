import { Elysia, t } from "elysia";
import type { AppContext } from "../../core/context.ts";
import type { Config } from "../../config/config.ts";
import { createProject, deleteProject, getProject, listProjects, renameProject } from "../../projects/projectService.ts";
import { readSettings, updateSettings } from "../../projects/settings.ts";
import { createApiKey, listApiKeys, revokeApiKey } from "../../auth/apiKeys.ts";
import { KeyBody, ProjectBody, SettingsBody } from "../adminSchemas.ts";
import { SettingsSchema } from "../../lore/loreSchemas.ts";
import { adminDetail, adminErrors } from "./crud.ts";
import { projectParam } from "../adminGuard.ts";
import { requireDeletionConfirmed } from "../confirmDeletion.ts";

const ProjectView = t.Object({ id: t.String(), name: t.String(), teamId: t.String(), createdAt: t.String() });
const pid = t.Object({ projectId: t.String() });

/** Projects, their API keys and settings. */
export function projectRoutes(ctx: Pick<AppContext, "db" | "clock" | "vectors" | "log">, config: Config) {
  return new Elysia({ name: "admin-projects", normalize: false })
    .get("/projects", () => ({ projects: listProjects(ctx) }), { detail: adminDetail("List projects") })
    .post(
      "/projects",
      ({ body, set }) => {
        set.status = 201;
        return createProject(ctx, { ...body, monthlyCredits: body.monthlyCredits ?? config.defaultMonthlyCredits });
      },
      { body: ProjectBody, response: { 201: ProjectView, ...adminErrors }, detail: adminDetail("Create a project (and a team on the default plan)") },
    )
    .get("/projects/:projectId", ({ params }) => getProject(ctx, params.projectId), {
      params: pid,
      response: { 200: ProjectView, ...adminErrors },
      detail: adminDetail("Get a project"),
    })
    .patch("/projects/:projectId", ({ params, body }) => renameProject(ctx, params.projectId, body.name), {
      params: pid,
      body: t.Object({ name: t.String({ maxLength: 200 }) }, { additionalProperties: false }),
      response: { 200: ProjectView, ...adminErrors },
      detail: adminDetail("Rename a project"),
    })
    .delete(
      "/projects/:projectId",
      async ({ params, query }) => {
        getProject(ctx, params.projectId);
        requireDeletionConfirmed(params.projectId, query.confirm);
        // SQLite's rows go first, in one transaction: from then on nothing reads the project. Its vectors (lore chunks
        // and players' memories in LanceDB, the vector cache and its snapshot files) go after, so a deleted project
        // leaves no player's memory behind; a failure there is logged, not the caller's (the rows are gone already).
        deleteProject(ctx, params.projectId);
        await ctx.vectors.deleteProject(params.projectId).catch((e) => ctx.log.error("a deleted project's vectors were not removed", { projectId: params.projectId, err: e instanceof Error ? e.message : String(e) }));
        return { id: params.projectId, deleted: true as const };
      },
      {
        params: pid,
        query: t.Object({ confirm: t.Optional(t.String()) }),
        detail: adminDetail("Delete a project and everything in it (needs ?confirm=<projectId>)"),
      },
    )
    .get("/projects/:projectId/keys", ({ params }) => ({ keys: listApiKeys(ctx, params.projectId) }), {
      params: pid,
      detail: adminDetail("List API keys (never the secret)"),
    })
    .post(
      "/projects/:projectId/keys",
      ({ params, body, set }) => {
        set.status = 201;
        return createApiKey(ctx, { projectId: projectParam(ctx, params.projectId), type: body.type, name: body.name });
      },
      {
        params: pid,
        body: KeyBody,
        response: { 201: t.Object({ id: t.String(), key: t.String(), type: t.String(), projectId: t.String() }), ...adminErrors },
        detail: adminDetail("Create an API key (the only time the key is shown)"),
      },
    )
    .delete("/projects/:projectId/keys/:keyId", ({ params }) => revokeApiKey(ctx, params.keyId, projectParam(ctx, params.projectId)), {
      params: t.Object({ projectId: t.String(), keyId: t.String() }),
      detail: adminDetail("Revoke an API key"),
    })
    .get("/projects/:projectId/settings", ({ params }) => ({ settings: readSettings(ctx, projectParam(ctx, params.projectId)) }), {
      params: pid,
      response: { 200: t.Object({ settings: SettingsSchema }), ...adminErrors },
      detail: adminDetail("Project settings"),
    })
    .patch("/projects/:projectId/settings", ({ params, body }) => ({ settings: updateSettings(ctx, params.projectId, body) }), {
      params: pid,
      body: SettingsBody,
      response: { 200: t.Object({ settings: SettingsSchema }), ...adminErrors },
      detail: adminDetail("Change project settings"),
    });
}
