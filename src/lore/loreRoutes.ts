import { Elysia, t } from "elysia";
import type { ServiceContext } from "../core/context.ts";
import { invalidRequest } from "../core/errors.ts";
import { requireEditor } from "../auth/authGuards.ts";
import { ErrorBody, editorErrors, pageQuery, PaginationSchema } from "../http/commonSchemas.ts";
import { specMindsResponse } from "./minds/streamMinds.ts";
import { readTags } from "./tags/readTags.ts";
import { readLocations } from "./locations/readLocations.ts";
import { readRelationships, readRelationshipTypes } from "./relationships/readRelationships.ts";
import { exportDocuments, getDocument, listDocuments } from "./documents/readDocuments.ts";
import { readSettings } from "../projects/settings.ts";
import {
  DocumentFullSchema,
  DocumentListItemSchema,
  DocumentStatusSchema,
  LocationSchema,
  MindSchema,
  PlainTagSchema,
  RelationshipSchema,
  RelationshipTypeSchema,
  SettingsSchema,
  TagSchema,
} from "./loreSchemas.ts";

const detail = (summary: string) => ({ tags: ["Lore (Editor Key)"], summary, security: [{ bearer: [] }] });

/** The read-only lore API for editor tooling (spec: GET /lore/*). Every query is scoped to the key's project. */
export function loreRoutes(ctx: ServiceContext) {
  return (
    new Elysia({ name: "lore-routes", prefix: "/lore" })
      // derive runs before schema validation: an unauthenticated caller learns nothing about parameters.
      .derive(({ headers }) => ({ principal: requireEditor(ctx, headers.authorization) }))
      // Streamed (streamMinds.ts); the schema below still documents the body.
      .get("/minds", ({ principal }) => specMindsResponse(ctx, principal.projectId), {
        response: { 200: t.Object({ minds: t.Array(MindSchema) }), ...editorErrors },
        detail: detail("Entity Minds with at least one knowledge tag"),
      })
      .get("/tags", ({ principal }) => ({ success: true as const, ...readTags(ctx, principal.projectId) }), {
        response: {
          200: t.Object({
            success: t.Literal(true),
            tags: t.Array(TagSchema),
            defaultTags: t.Array(PlainTagSchema),
            customTags: t.Array(PlainTagSchema),
            totalCount: t.Integer(),
          }),
          ...editorErrors,
        },
        detail: detail("Tags: all (with isDefault), default and custom"),
      })
      .get(
        "/locations",
        ({ principal }) => {
          const locations = readLocations(ctx, principal.projectId);
          return { success: true as const, locations, totalCount: locations.length };
        },
        {
          response: { 200: t.Object({ success: t.Literal(true), locations: t.Array(LocationSchema), totalCount: t.Integer() }), ...editorErrors },
          detail: detail("Locations ordered by name"),
        },
      )
      .get(
        "/relationships",
        ({ principal, query }) => {
          if ((query.fromEntityId === undefined) !== (query.toEntityId === undefined)) {
            throw invalidRequest("fromEntityId and toEntityId must be given together");
          }
          const result = readRelationships(ctx, principal.projectId, {
            entityMindId: query.entityMindId,
            fromEntityId: query.fromEntityId,
            toEntityId: query.toEntityId,
            limit: query.limit ?? 100,
            offset: query.offset ?? 0,
          });
          return { success: true as const, ...result };
        },
        {
          query: t.Object({
            entityMindId: t.Optional(t.String({ minLength: 1 })),
            fromEntityId: t.Optional(t.String({ minLength: 1 })),
            toEntityId: t.Optional(t.String({ minLength: 1 })),
            ...pageQuery(100, 500),
          }),
          response: {
            200: t.Object({ success: t.Literal(true), relationships: t.Array(RelationshipSchema), totalCount: t.Integer() }),
            ...editorErrors,
          },
          detail: detail("NPC-to-NPC relationships, filtered by mind or by pair (both directions)"),
        },
      )
      .get(
        "/relationship-types",
        ({ principal }) => ({ success: true as const, customTypes: readRelationshipTypes(ctx, principal.projectId) }),
        {
          response: { 200: t.Object({ success: t.Literal(true), customTypes: t.Array(RelationshipTypeSchema) }), ...editorErrors },
          detail: detail("Custom relationship types"),
        },
      )
      .get(
        "/documents",
        ({ principal, query }) => ({
          success: true as const,
          ...listDocuments(ctx, principal.projectId, {
            status: query.status,
            tag: query.tag,
            search: query.search,
            limit: query.limit ?? 50,
            offset: query.offset ?? 0,
          }),
        }),
        {
          query: t.Object({
            status: t.Optional(DocumentStatusSchema),
            tag: t.Optional(t.String({ maxLength: 100 })),
            search: t.Optional(t.String({ maxLength: 500 })),
            ...pageQuery(50, 100),
          }),
          response: {
            200: t.Object({ success: t.Literal(true), documents: t.Array(DocumentListItemSchema), pagination: PaginationSchema }),
            ...editorErrors,
          },
          detail: detail("Lore Documents (list form), newest first; full-text search over name and content"),
        },
      )
      .get(
        "/documents/export",
        ({ principal, query }) => ({
          success: true as const,
          ...exportDocuments(ctx, principal.projectId, { limit: query.limit ?? 20, offset: query.offset ?? 0 }),
        }),
        {
          query: t.Object(pageQuery(20, 50)),
          response: {
            200: t.Object({ success: t.Literal(true), documents: t.Array(DocumentFullSchema), pagination: PaginationSchema }),
            ...editorErrors,
          },
          detail: detail("Bulk export: documents in full form, newest first"),
        },
      )
      .get(
        "/documents/:documentId",
        ({ principal, params }) => ({ success: true as const, document: getDocument(ctx, principal.projectId, params.documentId) }),
        {
          params: t.Object({ documentId: t.String() }),
          response: { 200: t.Object({ success: t.Literal(true), document: DocumentFullSchema }), ...editorErrors, 404: ErrorBody },
          detail: detail("One Lore Document in full form, with its chunks"),
        },
      )
      .get("/project-settings", ({ principal }) => ({ success: true as const, settings: readSettings(ctx, principal.projectId) }), {
        response: { 200: t.Object({ success: t.Literal(true), settings: SettingsSchema }), ...editorErrors },
        detail: detail("Project settings"),
      })
  );
}
