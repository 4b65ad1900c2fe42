import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { buildWorld, indexPendingInSqlite } from "../support/world.ts";
import { exportPack } from "../../src/packs/exportPack.ts";
import { importPack, importPath, parsePackText } from "../../src/packs/importPack.ts";
import { readSettings } from "../../src/projects/settings.ts";
import { countRows, DEMO_PACK, dumpDb, newCtx, statusOf } from "./helpers.ts";

const demo = () => parsePackText(readFileSync(DEMO_PACK, "utf8"), "thornhaven.yaml") as any;

describe("re-import is idempotent by key", () => {
  test("the same pack again: same ids, same counts, nothing rewritten, statuses kept", async () => {
    const ctx = newCtx();
    const first = await importPath(ctx, DEMO_PACK);
    indexPendingInSqlite(ctx); // every document COMPLETED, as after the server's indexer
    const counts = countRows(ctx, first.projectId);
    const dump = dumpDb(ctx);
    ctx.clock.advance(60_000);
    const again = await importPath(ctx, DEMO_PACK, { projectId: first.projectId });
    expect(again).toEqual(first);
    expect(countRows(ctx, first.projectId)).toEqual(counts);
    expect(dumpDb(ctx)).toBe(dump); // not even updated_at moved
  });

  test("a changed document becomes PENDING, unchanged ones keep their status; other edits land in place", () => {
    const ctx = newCtx();
    const first = importPack(ctx, demo());
    indexPendingInSqlite(ctx);
    const pack = demo();
    const tunnel = pack.documents.find((d: any) => d.key === "smugglers-tunnel");
    tunnel.content += "\nA new paragraph about a second exit.";
    const calendar = pack.documents.find((d: any) => d.key === "river-calendar");
    calendar.tags = ["river-trade"]; // tags changed: the chunks carry tags, so it re-indexes too
    const market = pack.documents.find((d: any) => d.key === "market-day");
    market.location = null;
    pack.minds.find((m: any) => m.key === "garrick").role = "Landlord";
    pack.tags.find((t: any) => t.name === "tavern").color = "#FFFFFF";
    pack.relationships[0].description = "Changed";
    pack.settings.maxSessionLength = 40;
    const counts = countRows(ctx, first.projectId);
    const again = importPack(ctx, pack, { projectId: first.projectId });
    expect(again.ids).toEqual(first.ids);
    expect(countRows(ctx, first.projectId)).toEqual({ ...counts, documentTags: counts.documentTags - 1 });
    const ids = first.ids.documents;
    expect(statusOf(ctx, ids["smugglers-tunnel"])).toBe("PENDING");
    expect(statusOf(ctx, ids["river-calendar"])).toBe("PENDING");
    expect(statusOf(ctx, ids["market-day"])).toBe("PENDING");
    for (const key of ["town-history", "rusty-tankard", "reliquary-secret", "night-barges"]) expect(statusOf(ctx, ids[key])).toBe("COMPLETED");
    const exported = exportPack(ctx, first.projectId);
    expect(exported.minds!.find((m) => m.key === "garrick")!.role).toBe("Landlord");
    expect(exported.tags!.find((t) => t.name === "tavern")!.color).toBe("#ffffff");
    expect(exported.relationships!.find((r) => r.from === "garrick" && r.to === "mara")!.description).toBe("Changed");
    expect(exported.documents!.find((d) => d.key === "market-day")!.location).toBeUndefined();
    expect(readSettings(ctx, first.projectId).maxSessionLength).toBe(40);
  });

  test("two custom types may swap names", () => {
    const ctx = newCtx();
    const first = importPack(ctx, demo());
    const pack = demo();
    const [owes, holds] = [pack.relationshipTypes[0], pack.relationshipTypes[1]];
    [owes.name, holds.name] = [holds.name, owes.name];
    const again = importPack(ctx, pack, { projectId: first.projectId });
    expect(again.ids).toEqual(first.ids);
    const types = exportPack(ctx, first.projectId).relationshipTypes!;
    expect(types.find((t) => t.key === "owes-debt")!.name).toBe("Holds the Debt Of");
    expect(types.find((t) => t.key === "holds-debt")!.name).toBe("Owes a Debt To");
  });

  test("a field left out of an entry is cleared (the pack describes the whole row); rows not in the pack stay", () => {
    const ctx = newCtx();
    const first = importPack(ctx, demo());
    const pack = demo();
    const garrick = pack.minds.find((m: any) => m.key === "garrick");
    delete garrick.hints;
    delete garrick.responseConfig;
    pack.minds = [garrick];
    importPack(ctx, pack, { projectId: first.projectId });
    const exported = exportPack(ctx, first.projectId);
    expect(exported.minds!.length).toBe(7);
    const g = exported.minds!.find((m) => m.key === "garrick")!;
    expect(g.hints).toBeUndefined();
    expect(g.responseConfig).toBeUndefined();
  });
});

describe("import into an existing project by id", () => {
  test("references resolve to the project's rows; new rows are added beside them", () => {
    const ctx = newCtx();
    const w = buildWorld(ctx);
    const before = countRows(ctx, w.projectId);
    const r = importPack(
      ctx,
      {
        tags: [{ name: "river-folk", color: "#336699" }],
        locations: [{ key: "ferry", name: "The Ferry", document: "history" }],
        minds: [
          { key: "ferryman", entityName: "Old Tom", personality: "Silent.", location: "ferry", knowledgeTags: ["river-folk", "smugglers", "history"] },
          // an existing mind, updated in place
          { key: "blank", entityName: "Blank Villager", personality: "Knows a little now.", location: "docks", knowledgeTags: ["tavern"] },
        ],
        relationships: [
          { from: "ferryman", to: "elena", customType: "debtor", description: "Rowed her across for free" },
          { key: "tom-garrick", from: "ferryman", to: "garrick", type: "FRIEND" },
        ],
        documents: [{ key: "ferry-toll", name: "Ferry Toll", tags: ["river-folk", "tavern"], location: "tankard", content: "One copper a head." }],
      },
      { projectId: w.projectId },
    );
    expect(r.projectId).toBe(w.projectId);
    expect(r.ids.minds.blank).toBe(w.minds.blank);
    expect(Object.keys(r.ids.relationships)).toEqual(["ferryman->elena:debtor", "tom-garrick"]);
    expect(countRows(ctx, w.projectId)).toEqual({
      ...before,
      tags: before.tags + 1,
      locations: before.locations + 1,
      documents: before.documents + 1,
      documentTags: before.documentTags + 2,
      minds: before.minds + 1,
      mindTags: before.mindTags + 3 + 1, // blank had no tags, now one
      relationships: before.relationships + 2,
    });
    const pack = exportPack(ctx, w.projectId);
    expect(pack.project!.name).toBe("Thornhaven");
    expect(pack.locations!.find((l) => l.key === "ferry")).toEqual({ key: "ferry", name: "The Ferry", document: "history" });
    expect(pack.minds!.find((m) => m.key === "blank")).toEqual({
      key: "blank", entityName: "Blank Villager", personality: "Knows a little now.", location: "docks", knowledgeTags: ["tavern"],
    });
    expect(statusOf(ctx, r.ids.documents["ferry-toll"])).toBe("PENDING");
  });

  test("an unknown project id is 404 Project not found", () => {
    const ctx = newCtx();
    expect(() => importPack(ctx, {}, { projectId: "proj_nope" })).toThrow("Project not found");
  });

  test("without a project id the pack's project is created, with monthlyCredits for its team", () => {
    const ctx = newCtx();
    const r = importPack(ctx, { project: { name: "Fresh" } }, { monthlyCredits: 5 });
    const row = ctx.db
      .query("SELECT p.name, t.monthly_allotment_micro AS m FROM projects p JOIN teams t ON t.id = p.team_id WHERE p.id = ?")
      .get(r.projectId);
    expect(row).toEqual({ name: "Fresh", m: 5_000_000 });
    expect(countRows(ctx, r.projectId).tags).toBe(7); // the default tags
  });
});
