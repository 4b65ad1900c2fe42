import type { ServiceContext } from "../../core/context.ts";
import { notFound } from "../../core/errors.ts";
import { crudRoutes } from "./crud.ts";
import { DocumentBody, LocationBody, MindBody, RelationshipBody, RelationshipTypeBody, TagBody } from "../adminSchemas.ts";
import { AdminDocumentSchema, AdminMindSchema, LocationSchema, RelationshipSchema, RelationshipTypeSchema, TagSchema } from "../../lore/loreSchemas.ts";
import { readMinds } from "../../lore/minds/readMinds.ts";
import { createMind, deleteMind, updateMind } from "../../lore/minds/writeMinds.ts";
import { readTags } from "../../lore/tags/readTags.ts";
import { createTag, deleteTag, updateTag } from "../../lore/tags/writeTags.ts";
import { readLocations } from "../../lore/locations/readLocations.ts";
import { createLocation, deleteLocation, updateLocation } from "../../lore/locations/writeLocations.ts";
import { readRelationships, readRelationshipTypes } from "../../lore/relationships/readRelationships.ts";
import { createRelationshipType, deleteRelationshipType, updateRelationshipType } from "../../lore/relationships/writeRelationshipTypes.ts";
import { createRelationship, deleteRelationship, updateRelationship } from "../../lore/relationships/writeRelationships.ts";
import { adminDocument, adminDocuments } from "../../lore/documents/readDocuments.ts";
import { createDocument, deleteDocument, updateDocument } from "../../lore/documents/writeDocuments.ts";

/** CRUD of every lore resource under /admin/v1/projects/:projectId/... */
export function loreResourceRoutes(ctx: ServiceContext) {
  return [
    crudRoutes(ctx, {
      path: "minds",
      name: "Entity Mind",
      view: AdminMindSchema,
      createBody: MindBody,
      list: (c, p) => readMinds(c, p, { knowledge: true }),
      get: (c, p, id) => {
        const m = readMinds(c, p, { ids: [id], knowledge: true })[0];
        if (!m) throw notFound("Entity Mind");
        return m;
      },
      create: createMind,
      update: updateMind,
      remove: deleteMind,
    }),
    crudRoutes(ctx, {
      path: "tags",
      name: "Tag",
      view: TagSchema,
      createBody: TagBody,
      list: (c, p) => readTags(c, p).tags,
      create: createTag,
      update: updateTag,
      remove: deleteTag,
    }),
    crudRoutes(ctx, {
      path: "locations",
      name: "Location",
      view: LocationSchema,
      createBody: LocationBody,
      list: readLocations,
      create: createLocation,
      update: updateLocation,
      remove: deleteLocation,
    }),
    crudRoutes(ctx, {
      path: "relationship-types",
      name: "Relationship type",
      view: RelationshipTypeSchema,
      createBody: RelationshipTypeBody,
      list: readRelationshipTypes,
      create: createRelationshipType,
      update: updateRelationshipType,
      remove: deleteRelationshipType,
    }),
    crudRoutes(ctx, {
      path: "relationships",
      name: "Relationship",
      view: RelationshipSchema,
      createBody: RelationshipBody,
      list: (c, p) => readRelationships(c, p, { limit: 100_000, offset: 0 }).relationships,
      create: createRelationship,
      update: updateRelationship,
      remove: deleteRelationship,
    }),
    crudRoutes(ctx, {
      path: "documents",
      name: "Document",
      view: AdminDocumentSchema,
      createBody: DocumentBody,
      list: adminDocuments,
      get: adminDocument,
      create: createDocument,
      update: updateDocument,
      remove: deleteDocument,
    }),
  ];
}
