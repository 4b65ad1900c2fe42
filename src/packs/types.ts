import type { Static } from "@sinclair/typebox";
import type {
  DocumentSchema,
  EventSchema,
  LocationSchema,
  MindSchema,
  PackSchema,
  RelationshipSchema,
  RelationshipTypeSchema,
  SettingsSchema,
  TagSchema,
} from "./packSchema.ts";

/** A lore pack (DESIGN.md "Lore pack format"); the shape is defined once, in packSchema.ts. */
export type Pack = Static<typeof PackSchema>;
export type PackSettings = Static<typeof SettingsSchema>;
export type PackTag = Static<typeof TagSchema>;
export type PackLocation = Static<typeof LocationSchema>;
export type PackRelationshipType = Static<typeof RelationshipTypeSchema>;
export type PackMind = Static<typeof MindSchema>;
export type PackRelationship = Static<typeof RelationshipSchema>;
export type PackDocument = Static<typeof DocumentSchema>;
export type PackEvent = Static<typeof EventSchema>;

export type PackFormat = "yaml" | "json";

/** Ids of every entry of the pack, by key (tags by name; key-less relationships by `from->to:TYPE`). */
export interface ImportResult {
  projectId: string;
  ids: {
    minds: Record<string, string>;
    documents: Record<string, string>;
    locations: Record<string, string>;
    tags: Record<string, string>;
    relationshipTypes: Record<string, string>;
    relationships: Record<string, string>;
    events: Record<string, string>;
  };
}

export interface ImportOptions {
  /** import into this project; without it the pack's project (project.name) is created */
  projectId?: string;
  /** monthly allotment of the new project's team, in credits (only when the project is created) */
  monthlyCredits?: number;
}

/** The 400 every refused pack answers with (details: every problem as "path: reason"). */
export const INVALID_PACK = "Invalid lore pack";
