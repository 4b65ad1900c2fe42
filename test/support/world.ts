import type { ServiceContext } from "../../src/core/context.ts";
import { createProject } from "../../src/projects/projectService.ts";
import { createApiKey, revokeApiKey } from "../../src/auth/apiKeys.ts";
import { createTag } from "../../src/lore/tags/writeTags.ts";
import { createLocation, updateLocation } from "../../src/lore/locations/writeLocations.ts";
import { createMind } from "../../src/lore/minds/writeMinds.ts";
import { createRelationshipType } from "../../src/lore/relationships/writeRelationshipTypes.ts";
import { createRelationship } from "../../src/lore/relationships/writeRelationships.ts";
import { createDocument } from "../../src/lore/documents/writeDocuments.ts";
import { claimPendingDocument, completeDocument } from "../../src/lore/documents/documentStore.ts";
import type { ManualClock } from "../../src/core/clock.ts";

/** Indexes every PENDING document into SQLite chunks (paragraph split), without vectors. */
export function indexPendingInSqlite(ctx: ServiceContext): void {
  for (let d = claimPendingDocument(ctx); d; d = claimPendingDocument(ctx)) {
    const parts = d.content.split(/\n\s*\n/).filter((p) => p.trim());
    completeDocument(ctx, d, parts.map((content, chunkIndex) => ({ content, chunkIndex })));
  }
}

export interface World {
  projectId: string;
  teamId: string;
  keys: { server: string; editor: string; revokedEditor: string; revokedServer: string };
  tags: Record<string, string>;
  locations: Record<string, string>;
  minds: Record<string, string>;
  types: Record<string, string>;
  relationships: Record<string, string>;
  documents: Record<string, string>;
}

/**
 * A small world built through the same services the admin API uses.
 * `clock` is advanced between documents so "newest first" is well defined.
 */
export function buildWorld(ctx: ServiceContext & { clock: ManualClock }, name = "Thornhaven", opts: { index?: "sqlite" | "none" } = {}): World {
  const tick = () => ctx.clock.advance(1000);
  const p = createProject(ctx, { name });
  const key = (type: "server" | "editor") => createApiKey(ctx, { projectId: p.id, type });
  const revokedEditor = key("editor");
  revokeApiKey(ctx, revokedEditor.id);
  const revokedServer = key("server");
  revokeApiKey(ctx, revokedServer.id);
  const tags: Record<string, string> = {};
  for (const [n, color] of [["tavern", "#aa5500"], ["town-history", null], ["smugglers", "#000000"]] as const) {
    tags[n] = createTag(ctx, p.id, { name: n, color }).id;
  }
  const documents: Record<string, string> = {};
  const doc = (k: string, docName: string, content: string, docTags: string[]) => {
    tick();
    documents[k] = createDocument(ctx, p.id, { key: k, name: docName, content, tags: docTags }).id;
  };
  doc("history", "History of Thornhaven", "Thornhaven was founded by river traders.\n\nThe old bridge burned in the year of ash.", ["town-history", "history"]);
  doc("menu", "The Rusty Tankard Menu", "Ale, mutton stew and honey bread.\n\nGarrick brews a dark porter.", ["tavern"]);
  doc("tunnel", "The Smugglers' Tunnel", "A tunnel runs from the cellar to the docks.", ["smugglers"]);
  doc("untagged", "Loose Notes", "Notes about the weather in spring.", []);
  const locations: Record<string, string> = {};
  locations.tankard = createLocation(ctx, p.id, { key: "tankard", name: "Rusty Tankard", description: "A tavern", documentId: documents.menu }).id;
  locations.docks = createLocation(ctx, p.id, { key: "docks", name: "Docks" }).id;
  locations.abbey = createLocation(ctx, p.id, { key: "abbey", name: "abbey ruins" }).id;
  updateLocation(ctx, p.id, locations.docks, { description: "Where the river meets the sea" });
  const minds: Record<string, string> = {};
  minds.garrick = createMind(ctx, p.id, {
    key: "garrick",
    entityName: "Garrick",
    personality: "Cheerful innkeeper who loves gossip.",
    backstory: "Ran the Tankard for thirty years.",
    role: "Innkeeper",
    speakingStyle: "Warm, chatty",
    hints: ["Mentions the missing caravan"],
    restrictions: ["Never reveals the smugglers' tunnel"],
    locationId: locations.tankard,
    knowledgeTags: ["tavern", "town-history"],
    responseConfig: { verbosity: "terse" },
  }).id;
  minds.elena = createMind(ctx, p.id, {
    key: "elena",
    entityName: "Elena",
    personality: "Quiet smuggler.",
    knowledgeTags: ["smugglers"],
    knowledgeDescription: "Knows the tunnels.",
    locationId: locations.docks,
    responseConfig: { verbosity: "verbose", maxTokens: 123, temperature: 0.2 },
  }).id;
  minds.blank = createMind(ctx, p.id, { key: "blank", entityName: "Blank Villager", personality: "Knows nothing." }).id;
  const types: Record<string, string> = {};
  types.sworn = createRelationshipType(ctx, p.id, { key: "sworn", name: "Sworn Enemy", color: "#ff0000", isSymmetric: true, conflictsWithBuiltIn: ["FRIEND", "ALLY"] }).id;
  types.debtor = createRelationshipType(ctx, p.id, { key: "debtor", name: "Debtor", color: "#00ff00", description: "Owes money" }).id;
  const relationships: Record<string, string> = {};
  tick();
  relationships.friends = createRelationship(ctx, p.id, { fromEntityId: minds.garrick, toEntityId: minds.elena, type: "FRIEND", description: "Old friends" }).id;
  tick();
  relationships.sworn = createRelationship(ctx, p.id, { fromEntityId: minds.elena, toEntityId: minds.blank, customTypeId: types.sworn }).id;
  tick();
  relationships.mentor = createRelationship(ctx, p.id, { fromEntityId: minds.blank, toEntityId: minds.garrick, type: "MENTOR" }).id;
  if (opts.index !== "none") indexPendingInSqlite(ctx);
  return {
    projectId: p.id,
    teamId: p.teamId,
    keys: { server: key("server").key, editor: key("editor").key, revokedEditor: revokedEditor.key, revokedServer: revokedServer.key },
    tags,
    locations,
    minds,
    types,
    relationships,
    documents,
  };
}
