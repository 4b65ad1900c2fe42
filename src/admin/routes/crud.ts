import { Elysia, t, type TSchema } from "elysia";
import type { ServiceContext } from "../../core/context.ts";
import { notFound } from "../../core/errors.ts";
import { ErrorBody } from "../../http/commonSchemas.ts";
import { projectParam } from "../adminGuard.ts";

export interface CrudSpec<V extends { id: string }> {
  /** path segment under /projects/:projectId, e.g. "minds" */
  path: string;
  /** singular name for messages and Swagger, e.g. "Entity Mind" */
  name: string;
  view: TSchema;
  createBody: TSchema;
  list(ctx: ServiceContext, projectId: string): V[];
  /** one item (defaults to finding it in list) */
  get?(ctx: ServiceContext, projectId: string, id: string): V;
  create(ctx: ServiceContext, projectId: string, body: any): { id: string };
  update(ctx: ServiceContext, projectId: string, id: string, body: any): { id: string };
  remove(ctx: ServiceContext, projectId: string, id: string): void;
}

export const adminDetail = (summary: string) => ({ tags: ["Admin"], summary, security: [{ bearer: [] }] });
export const adminErrors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 409: ErrorBody } as const;

/**
 * The five routes of one authoring resource: list, get, create, patch,
 * delete. The service does the validation (the same code the CLI and lore
 * packs use); the route only maps HTTP to it.
 */
export function crudRoutes<V extends { id: string }>(ctx: ServiceContext, spec: CrudSpec<V>) {
  const one = (projectId: string, id: string): V => {
    if (spec.get) return spec.get(ctx, projectId, id);
    const found = spec.list(ctx, projectId).find((v) => v.id === id);
    if (!found) throw notFound(spec.name);
    return found;
  };
  const base = `/projects/:projectId/${spec.path}`;
  const params = t.Object({ projectId: t.String() });
  const itemParams = t.Object({ projectId: t.String(), id: t.String() });
  return new Elysia({ name: `admin-${spec.path}`, normalize: false })
    .get(base, ({ params: p }) => ({ [spec.path]: spec.list(ctx, projectParam(ctx, p.projectId)) }), {
      params,
      detail: adminDetail(`List ${spec.name}s`),
    })
    .get(`${base}/:id`, ({ params: p }) => one(projectParam(ctx, p.projectId), p.id), {
      params: itemParams,
      response: { 200: spec.view, ...adminErrors },
      detail: adminDetail(`Get a ${spec.name}`),
    })
    .post(
      base,
      ({ params: p, body, set }) => {
        const projectId = projectParam(ctx, p.projectId);
        const { id } = spec.create(ctx, projectId, body);
        set.status = 201;
        return one(projectId, id);
      },
      { params, body: spec.createBody, response: { 201: spec.view, ...adminErrors }, detail: adminDetail(`Create a ${spec.name}`) },
    )
    .patch(
      `${base}/:id`,
      ({ params: p, body }) => {
        const projectId = projectParam(ctx, p.projectId);
        spec.update(ctx, projectId, p.id, body);
        return one(projectId, p.id);
      },
      { params: itemParams, body: t.Partial(spec.createBody as any), response: { 200: spec.view, ...adminErrors }, detail: adminDetail(`Update a ${spec.name}`) },
    )
    .delete(
      `${base}/:id`,
      ({ params: p }) => {
        spec.remove(ctx, projectParam(ctx, p.projectId), p.id);
        return { id: p.id, deleted: true as const };
      },
      { params: itemParams, response: { 200: t.Object({ id: t.String(), deleted: t.Literal(true) }), ...adminErrors }, detail: adminDetail(`Delete a ${spec.name}`) },
    );
}
