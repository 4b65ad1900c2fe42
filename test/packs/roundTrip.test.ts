import { describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { buildWorld } from "../support/world.ts";
import { createLocation } from "../../src/lore/locations/writeLocations.ts";
import { createMind } from "../../src/lore/minds/writeMinds.ts";
import { createDocument } from "../../src/lore/documents/writeDocuments.ts";
import { createRelationshipType } from "../../src/lore/relationships/writeRelationshipTypes.ts";
import { createRelationship } from "../../src/lore/relationships/writeRelationships.ts";
import { findTagByName, updateTag } from "../../src/lore/tags/writeTags.ts";
import { updateSettings } from "../../src/projects/settings.ts";
import { exportPack, serializePack } from "../../src/packs/exportPack.ts";
import { importPack, parsePackText } from "../../src/packs/importPack.ts";
import { PackSchema } from "../../src/packs/packSchema.ts";
import { countRows, newCtx, type TestCtx } from "./helpers.ts";

/** The shared test world plus rows authored without keys (as the admin API and the scanner do). */
function richWorld(ctx: TestCtx) {
  const w = buildWorld(ctx);
  const p = w.projectId;
  const mill = createLocation(ctx, p, { name: "Old Mill", description: "Wheel long stopped" }).id;
  const doc = createDocument(ctx, p, { name: "Mill Ledger", content: "Flour, 40 sacks.\n\nOwed: 3 crowns.", tags: ["items"], locationId: mill }).id;
  // same name as the keyed mind 'garrick': the generated key must not collide
  createMind(ctx, p, { entityName: "Garrick", personality: "The other Garrick.", locationId: mill, knowledgeTags: ["items"], hints: ["Not the innkeeper"] });
  const rival = createRelationshipType(ctx, p, { name: "Grain Rival", color: "#123456", conflictsWithBuiltIn: ["ALLY"], conflictsWithCustom: [w.types.sworn] }).id;
  createRelationship(ctx, p, { key: "bread-war", fromEntityId: w.minds.garrick, toEntityId: w.minds.blank, customTypeId: rival, description: "Bread" });
  createRelationship(ctx, p, { fromEntityId: w.minds.elena, toEntityId: w.minds.garrick, type: "ALLY" });
  // the admin API allows a second key-less FRIEND between the same two minds
  const friendsAgain = createRelationship(ctx, p, { fromEntityId: w.minds.garrick, toEntityId: w.minds.elena, type: "FRIEND", description: "Still friends" }).id;
  updateTag(ctx, p, findTagByName(ctx, p, "history")!.id, { color: "#abcdef" });
  updateSettings(ctx, p, { maxSessionLength: 33, enhancedMemoryRetrieval: true });
  return { ...w, mill, doc, friendsAgain };
}

describe("export → import round trip", () => {
  test("the export validates against the pack schema, with generated keys for key-less rows", () => {
    const ctx = newCtx();
    const w = richWorld(ctx);
    const pack = exportPack(ctx, w.projectId);
    expect(Value.Check(PackSchema, pack)).toBe(true);
    expect(pack.project).toEqual({ name: "Thornhaven" });
    expect(pack.settings).toEqual({ longTermMemoryEnabled: true, maxSessionLength: 33, maxSessionTokens: 50000, enhancedMemoryRetrieval: true });
    // default tags only when coloured; custom tags always
    expect(pack.tags!.map((t) => t.name)).toEqual(["history", "smugglers", "tavern", "town-history"]);
    expect(pack.locations!.map((l) => l.key)).toEqual(["abbey", "docks", "old-mill", "tankard"]);
    expect(pack.documents!.find((d) => d.name === "Mill Ledger")).toEqual({
      key: "mill-ledger", name: "Mill Ledger", tags: ["items"], location: "old-mill", content: "Flour, 40 sacks.\n\nOwed: 3 crowns.",
    });
    const otherGarrick = pack.minds!.find((m) => m.personality === "The other Garrick.")!;
    expect(otherGarrick.key).toMatch(/^garrick-[0-9a-z]{6}$/);
    expect(otherGarrick.location).toBe("old-mill");
    expect(pack.relationshipTypes!.find((t) => t.name === "Grain Rival")).toEqual({
      key: "grain-rival", name: "Grain Rival", color: "#123456", conflictsWithBuiltIn: ["ALLY"], conflictsWithCustom: ["sworn"],
    });
    expect(pack.relationships).toContainEqual({ from: "elena", to: "blank", customType: "sworn" });
    expect(pack.relationships).toContainEqual({ key: "bread-war", from: "garrick", to: "blank", customType: "grain-rival", description: "Bread" });
    expect(pack.relationships!.filter((r) => r.from === "garrick" && r.to === "elena")).toEqual([
      { from: "garrick", to: "elena", type: "FRIEND", description: "Old friends" },
      { key: "garrick-elena-friend", from: "garrick", to: "elena", type: "FRIEND", description: "Still friends" },
    ]);
    expect(pack.minds!.find((m) => m.key === "elena")!.responseConfig).toEqual({ verbosity: "verbose", maxTokens: 123, temperature: 0.2 });
    // stable: a second export is the same text
    expect(serializePack(exportPack(ctx, w.projectId), "yaml")).toBe(serializePack(pack, "yaml"));
  });

  test("importing an export into a new project gives the same export", () => {
    const ctx = newCtx();
    const w = richWorld(ctx);
    const first = exportPack(ctx, w.projectId);
    const r = importPack(ctx, first);
    expect(r.projectId).not.toBe(w.projectId);
    expect(exportPack(ctx, r.projectId)).toEqual(first);
    expect(countRows(ctx, r.projectId)).toEqual(countRows(ctx, w.projectId));
  });

  for (const format of ["yaml", "json"] as const) {
    test(`through ${format} text`, () => {
      const ctx = newCtx();
      const w = richWorld(ctx);
      const first = exportPack(ctx, w.projectId);
      const text = serializePack(first, format);
      if (format === "yaml") expect(text).toContain("content: |");
      const r = importPack(ctx, parsePackText(text, `pack.${format}`));
      expect(exportPack(ctx, r.projectId)).toEqual(first);
    });
  }

  test("importing an export back into its own project changes nothing (key-less rows are matched by their generated keys)", () => {
    const ctx = newCtx();
    const w = richWorld(ctx);
    const before = countRows(ctx, w.projectId);
    const first = exportPack(ctx, w.projectId);
    const r = importPack(ctx, first, { projectId: w.projectId });
    expect(countRows(ctx, w.projectId)).toEqual(before);
    expect(r.ids.locations["old-mill"]).toBe(w.mill);
    expect(r.ids.documents["mill-ledger"]).toBe(w.doc);
    expect(r.ids.minds.garrick).toBe(w.minds.garrick);
    expect(r.ids.relationships["garrick->elena:FRIEND"]).toBe(w.relationships.friends);
    expect(r.ids.relationships["garrick-elena-friend"]).toBe(w.friendsAgain);
    // the generated keys are now stored keys
    expect(ctx.db.query("SELECT key FROM locations WHERE id = ?").get(w.mill)).toEqual({ key: "old-mill" });
    expect(exportPack(ctx, w.projectId)).toEqual(first);
  });
});
