import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { buildWorld, type World } from "../support/world.ts";

let t: TestApp;
let a: World; // project A
let b: World; // project B: same shapes, must never leak into A
const get = (path: string, key = a.keys.editor) => t.call("GET", path, { key });

beforeAll(async () => {
  t = await createTestApp();
  a = buildWorld(t.app.ctx as any, "Thornhaven");
  b = buildWorld(t.app.ctx as any, "Other Project");
});
afterAll(() => t.close());

describe("GET /v1/lore/minds", () => {
  test("lists only minds with knowledge tags, every spec field", async () => {
    const r = await get("/v1/lore/minds");
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(["minds"]);
    expect(r.body.minds.map((m: any) => m.entityName)).toEqual(["Elena", "Garrick"]);
    const g = r.body.minds.find((m: any) => m.entityName === "Garrick");
    expect(g).toEqual({
      id: a.minds.garrick,
      entityName: "Garrick",
      personality: "Cheerful innkeeper who loves gossip.",
      backstory: "Ran the Tankard for thirty years.",
      backstorySummary: null,
      role: "Innkeeper",
      speakingStyle: "Warm, chatty",
      hints: ["Mentions the missing caravan"],
      restrictions: ["Never reveals the smugglers' tunnel"],
      locationId: a.locations.tankard,
      location: { id: a.locations.tankard, name: "Rusty Tankard" },
      knowledgeTags: ["tavern", "town-history"],
      knowledgeDescription: expect.stringContaining("Knows about tavern, town-history (2 documents"),
      computedFilter: { tags: ["tavern", "town-history"], documentCount: 2, chunkCount: 4 },
      responseConfig: { verbosity: "terse", maxTokens: 80, temperature: 0.7, maxSentences: 2 },
      buildCreditsUsed: 0,
      interactionCount: 0,
      relationshipCount: 2,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const e = r.body.minds.find((m: any) => m.entityName === "Elena");
    expect(e.knowledgeDescription).toBe("Knows the tunnels.");
    expect(e.responseConfig).toEqual({ verbosity: "verbose", maxTokens: 123, temperature: 0.2, maxSentences: 5 });
    expect(e.relationshipCount).toBe(2);
    expect(e.backstory).toBeNull();
    expect(new Date(e.createdAt).toISOString()).toBe(e.createdAt);
  });
  test("project B's key sees only B's minds", async () => {
    const r = await get("/v1/lore/minds", b.keys.editor);
    expect(r.body.minds.map((m: any) => m.id).sort()).toEqual([b.minds.elena, b.minds.garrick].sort());
  });
});

describe("GET /v1/lore/tags", () => {
  test("tags with isDefault; default and custom lists without it; counts", async () => {
    const r = await get("/v1/lore/tags");
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(true);
    expect(r.body.totalCount).toBe(10);
    expect(r.body.tags).toHaveLength(10);
    expect(r.body.defaultTags.map((x: any) => x.name)).toEqual(["characters", "factions", "general", "geography", "history", "items", "quests"]);
    expect(r.body.customTags.map((x: any) => x.name)).toEqual(["smugglers", "tavern", "town-history"]);
    for (const x of [...r.body.defaultTags, ...r.body.customTags]) expect("isDefault" in x).toBe(false);
    const tavern = r.body.tags.find((x: any) => x.name === "tavern");
    expect(tavern).toEqual({ id: a.tags.tavern, name: "tavern", color: "#aa5500", isDefault: false, documentCount: 1 });
    expect(r.body.tags.find((x: any) => x.name === "history")).toMatchObject({ isDefault: true, documentCount: 1, color: null });
    expect(r.body.tags.some((x: any) => x.id === b.tags.tavern)).toBe(false);
  });
});

describe("GET /v1/lore/locations", () => {
  test("ordered by name (case-insensitive), linked document, mind counts", async () => {
    const r = await get("/v1/lore/locations");
    expect(r.status).toBe(200);
    expect(r.body.totalCount).toBe(3);
    expect(r.body.locations.map((l: any) => l.name)).toEqual(["abbey ruins", "Docks", "Rusty Tankard"]);
    expect(r.body.locations[2]).toEqual({
      id: a.locations.tankard,
      name: "Rusty Tankard",
      description: "A tavern",
      documentId: a.documents.menu,
      document: { id: a.documents.menu, name: "The Rusty Tankard Menu" },
      entityMindCount: 1,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(r.body.locations[1]).toMatchObject({ description: "Where the river meets the sea", documentId: null, document: null, entityMindCount: 1 });
  });
});

describe("GET /v1/lore/relationships", () => {
  const ids = (r: any) => r.body.relationships.map((x: any) => x.id);
  test("full shape of a built-in and a custom relationship", async () => {
    const r = await get("/v1/lore/relationships");
    expect(r.status).toBe(200);
    expect(r.body.totalCount).toBe(3);
    expect(ids(r)).toEqual([a.relationships.friends, a.relationships.sworn, a.relationships.mentor]);
    expect(r.body.relationships[0]).toEqual({
      id: a.relationships.friends,
      type: "FRIEND",
      customTypeId: null,
      customType: null,
      description: "Old friends",
      fromEntity: { id: a.minds.garrick, entityName: "Garrick", location: { id: a.locations.tankard, name: "Rusty Tankard" } },
      toEntity: { id: a.minds.elena, entityName: "Elena", location: { id: a.locations.docks, name: "Docks" } },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(r.body.relationships[1]).toMatchObject({
      type: null,
      customTypeId: a.types.sworn,
      customType: { id: a.types.sworn, name: "Sworn Enemy", color: "#ff0000" },
      description: null,
      toEntity: { id: a.minds.blank, entityName: "Blank Villager", location: null },
    });
  });
  const cases: Array<[string, () => string, () => string[], number?]> = [
    ["by entityMindId, either direction", () => `entityMindId=${a.minds.garrick}`, () => [a.relationships.friends, a.relationships.mentor]],
    ["pair in stored direction", () => `fromEntityId=${a.minds.garrick}&toEntityId=${a.minds.elena}`, () => [a.relationships.friends]],
    ["pair reversed finds the same", () => `fromEntityId=${a.minds.elena}&toEntityId=${a.minds.garrick}`, () => [a.relationships.friends]],
    ["limit 1", () => "limit=1", () => [a.relationships.friends], 3],
    ["offset 2", () => "offset=2", () => [a.relationships.mentor], 3],
    ["offset past the end", () => "offset=10", () => [], 3],
    ["limit at max", () => "limit=500", () => [a.relationships.friends, a.relationships.sworn, a.relationships.mentor], 3],
    ["another project's mind id gives nothing", () => `entityMindId=${b.minds.garrick}`, () => [], 0],
    ["unknown mind id gives nothing", () => "entityMindId=mind_nope", () => [], 0],
  ];
  for (const [name, q, expected, total] of cases) {
    test(name, async () => {
      const r = await get(`/v1/lore/relationships?${q()}`);
      expect(r.status).toBe(200);
      expect(ids(r)).toEqual(expected());
      expect(r.body.totalCount).toBe(total ?? expected().length);
    });
  }
  const bad: Array<[string, string, string]> = [
    ["fromEntityId alone", "fromEntityId=x", "fromEntityId and toEntityId must be given together"],
    ["toEntityId alone", "toEntityId=x", "fromEntityId and toEntityId must be given together"],
    ["limit over max", "limit=501", "limit: must be an integer from 1 to 500"],
    ["limit zero", "limit=0", "limit: must be an integer from 1 to 500"],
    ["limit not a number", "limit=ten", "limit: must be an integer from 1 to 500"],
    ["limit fractional", "limit=1.5", "limit: must be an integer from 1 to 500"],
    ["negative offset", "offset=-1", "offset: must be an integer from 0 to 1000000000"],
  ];
  for (const [name, q, detail] of bad) {
    test(`400 ${name}`, async () => {
      const r = await get(`/v1/lore/relationships?${q}`);
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ error: "Invalid request", details: [detail] });
    });
  }
});

describe("GET /v1/lore/relationship-types", () => {
  test("custom types with usage, conflicts and inverse", async () => {
    const r = await get("/v1/lore/relationship-types");
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(true);
    expect(r.body.customTypes.map((x: any) => x.name)).toEqual(["Debtor", "Sworn Enemy"]);
    expect(r.body.customTypes[1]).toEqual({
      id: a.types.sworn,
      name: "Sworn Enemy",
      description: null,
      color: "#ff0000",
      isSymmetric: true,
      inverseTypeId: null,
      conflictsWithBuiltIn: ["FRIEND", "ALLY"],
      conflictsWithCustom: [],
      usageCount: 1,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(r.body.customTypes[0]).toMatchObject({ usageCount: 0, isSymmetric: false, description: "Owes money" });
  });
});

describe("GET /v1/lore/documents", () => {
  const names = (r: any) => r.body.documents.map((d: any) => d.name);
  test("list form, newest first, with tags and pagination", async () => {
    const r = await get("/v1/lore/documents");
    expect(r.status).toBe(200);
    expect(names(r)).toEqual(["Loose Notes", "The Smugglers' Tunnel", "The Rusty Tankard Menu", "History of Thornhaven"]);
    expect(r.body.pagination).toEqual({ total: 4, limit: 50, offset: 0, hasMore: false });
    const hist = r.body.documents[3];
    expect(hist).toEqual({
      id: a.documents.history,
      name: "History of Thornhaven",
      status: "COMPLETED",
      chunkCount: 2,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      processedAt: expect.any(String),
      tags: [
        { id: expect.any(String), name: "history", color: null, isDefault: true },
        { id: a.tags["town-history"], name: "town-history", color: null, isDefault: false },
      ],
    });
    expect("content" in hist).toBe(false);
  });
  const cases: Array<[string, string, string[], object?]> = [
    ["status filter", "status=COMPLETED", ["Loose Notes", "The Smugglers' Tunnel", "The Rusty Tankard Menu", "History of Thornhaven"]],
    ["status with no match", "status=FAILED", []],
    ["tag filter", "tag=tavern", ["The Rusty Tankard Menu"]],
    ["default tag filter", "tag=history", ["History of Thornhaven"]],
    ["unknown tag", "tag=nope", []],
    ["search in content", "search=porter", ["The Rusty Tankard Menu"]],
    ["search in name, case-insensitive", "search=THORNHAVEN", ["History of Thornhaven"]],
    ["search prefix", "search=smuggl", ["The Smugglers' Tunnel"]],
    ["search several words (all required)", "search=bridge%20burned", ["History of Thornhaven"]],
    ["search with FTS syntax characters is safe", `search=${encodeURIComponent('"bridge" OR (NEAR* -')}`, []],
    ["search punctuation only", `search=${encodeURIComponent("*()")}`, []],
    ["search and tag together", "search=tunnel&tag=smugglers", ["The Smugglers' Tunnel"]],
    ["limit 2 has more", "limit=2", ["Loose Notes", "The Smugglers' Tunnel"], { total: 4, limit: 2, offset: 0, hasMore: true }],
    ["last page", "limit=2&offset=2", ["The Rusty Tankard Menu", "History of Thornhaven"], { total: 4, limit: 2, offset: 2, hasMore: false }],
    ["offset past the end", "offset=100", [], { total: 4, limit: 50, offset: 100, hasMore: false }],
    ["limit at max", "limit=100", ["Loose Notes", "The Smugglers' Tunnel", "The Rusty Tankard Menu", "History of Thornhaven"]],
  ];
  for (const [name, q, expected, pag] of cases) {
    test(name, async () => {
      const r = await get(`/v1/lore/documents?${q}`);
      expect(r.status).toBe(200);
      expect(names(r)).toEqual(expected);
      if (pag) expect(r.body.pagination).toEqual(pag);
    });
  }
  const bad: Array<[string, string, string]> = [
    ["limit over max", "limit=101", "limit: must be an integer from 1 to 100"],
    ["bad status", "status=DONE", "status: must be one of PENDING, PROCESSING, COMPLETED, FAILED"],
    ["lower-case status", "status=completed", "status: must be one of PENDING, PROCESSING, COMPLETED, FAILED"],
    ["offset text", "offset=abc", "offset: must be an integer from 0 to 1000000000"],
  ];
  for (const [name, q, detail] of bad) {
    test(`400 ${name}`, async () => {
      const r = await get(`/v1/lore/documents?${q}`);
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ error: "Invalid request", details: [detail] });
    });
  }
  test("project B never sees A's documents, even by search", async () => {
    const r = await get("/v1/lore/documents?search=porter", b.keys.editor);
    expect(names(r)).toEqual(["The Rusty Tankard Menu"]);
    expect(r.body.documents[0].id).toBe(b.documents.menu);
  });
});

describe("GET /v1/lore/documents/{id}", () => {
  test("full form with chunks, tags and location", async () => {
    const r = await get(`/v1/lore/documents/${a.documents.history}`);
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(true);
    expect(r.body.document).toEqual({
      id: a.documents.history,
      name: "History of Thornhaven",
      content: "Thornhaven was founded by river traders.\n\nThe old bridge burned in the year of ash.",
      status: "COMPLETED",
      chunkCount: 2,
      chunks: [
        { id: expect.any(String), content: "Thornhaven was founded by river traders.", chunkIndex: 0, tags: ["history", "town-history"] },
        { id: expect.any(String), content: "The old bridge burned in the year of ash.", chunkIndex: 1, tags: ["history", "town-history"] },
      ],
      tags: [
        { id: expect.any(String), name: "history" },
        { id: a.tags["town-history"], name: "town-history" },
      ],
      location: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      processedAt: expect.any(String),
    });
  });
  for (const [name, id] of [["another project's document", () => b.documents.history], ["no such id", () => "doc_missing"]] as const) {
    test(`404 for ${name}`, async () => {
      const r = await get(`/v1/lore/documents/${id()}`);
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ error: "Document not found" });
    });
  }
});

describe("GET /v1/lore/documents/export", () => {
  test("full form, newest first, default page 20", async () => {
    const r = await get("/v1/lore/documents/export");
    expect(r.status).toBe(200);
    expect(r.body.documents.map((d: any) => d.id)).toEqual([a.documents.untagged, a.documents.tunnel, a.documents.menu, a.documents.history]);
    expect(r.body.documents[0].content).toBe("Notes about the weather in spring.");
    expect(r.body.documents[0].chunks).toHaveLength(1);
    expect(r.body.pagination).toEqual({ total: 4, limit: 20, offset: 0, hasMore: false });
  });
  test("limit 50 is the max; 51 is refused", async () => {
    expect((await get("/v1/lore/documents/export?limit=50")).status).toBe(200);
    const r = await get("/v1/lore/documents/export?limit=51");
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: "Invalid request", details: ["limit: must be an integer from 1 to 50"] });
  });
  test("paging", async () => {
    const r = await get("/v1/lore/documents/export?limit=3&offset=3");
    expect(r.body.documents.map((d: any) => d.id)).toEqual([a.documents.history]);
    expect(r.body.pagination).toEqual({ total: 4, limit: 3, offset: 3, hasMore: false });
  });
});

describe("GET /v1/lore/project-settings", () => {
  test("spec defaults", async () => {
    const r = await get("/v1/lore/project-settings");
    expect(r.body).toEqual({
      success: true,
      settings: { projectName: "Thornhaven", longTermMemoryEnabled: true, maxSessionLength: 20, maxSessionTokens: 50000, enhancedMemoryRetrieval: false },
    });
  });
});
