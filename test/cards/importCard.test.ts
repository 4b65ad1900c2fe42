import { describe, expect, test } from "bun:test";
import { importCardBytes } from "../../src/cards/importCard.ts";
import { exportCard } from "../../src/cards/exportCard.ts";
import { readCardBytes } from "../../src/cards/readCardBytes.ts";
import { cardToPng } from "../../src/cards/exportCard.ts";
import { exportPack } from "../../src/packs/exportPack.ts";
import { createProject } from "../../src/projects/projectService.ts";
import { apiErrorOf, countRows, dumpDb, newCtx } from "../packs/helpers.ts";
import { b64, bytesOf, LOREBOOK_V3, MIRA_V2, ODO_V3, png, tEXt, WORLD_INFO } from "./fixtures.ts";

const docsOf = (ctx: ReturnType<typeof newCtx>, projectId: string) => exportPack(ctx, projectId).documents ?? [];

describe("a card becomes a mind and its book lore documents", () => {
  test("mapping of every field (V2 PNG, new project named after the character)", () => {
    const ctx = newCtx();
    const r = importCardBytes(ctx, png(tEXt("chara", b64(MIRA_V2))));
    expect(r).toMatchObject({ kind: "card", format: "png", tag: "st:mira-ashgrove", entries: { documents: 3, constant: 1, disabled: 1 } });
    const pack = exportPack(ctx, r.projectId);
    expect(pack.project!.name).toBe("Mira Ashgrove");
    expect(pack.minds).toEqual([
      {
        key: "st:mira-ashgrove",
        entityName: "Mira Ashgrove",
        personality: "Watchful, dry-humoured, protective of sailors.",
        backstory: "Mira Ashgrove keeps the lighthouse of Saltmere. She lost her brother to the Drowned Fleet.\n\nScenario: the player arrives at the lighthouse during a storm.",
        speakingStyle: "Example dialogue:\nthe player: Who are you?\nMira Ashgrove: The one who keeps you off the rocks.",
        hints: ["Speak in short, weathered sentences."],
        restrictions: ["Never reveal where the Fleet's gold is hidden."],
        knowledgeTags: ["st:mira-ashgrove"],
        knowledgeDescription: "Saltmere is a fishing town on a cold northern coast.",
      },
    ]);
    expect(r.mindId).toBe(r.ids.minds["st:mira-ashgrove"]);
    expect(docsOf(ctx, r.projectId)).toEqual([
      { key: "st:mira-ashgrove/entry:1", name: "The Drowned Fleet", tags: ["st:mira-ashgrove"], content: "Keywords: Drowned Fleet, fleet, ghost, ships\n\nThe Drowned Fleet are ghost ships that rise from the bay on moonless nights, crewed by the lost." },
      { key: "st:mira-ashgrove/entry:2", name: "Saltmere Lighthouse", tags: ["st:mira-ashgrove"], content: "Keywords: lighthouse, lamp\n\nThe Saltmere lighthouse burns whale oil; its lamp has not gone dark in ninety years." },
      { key: "st:mira-ashgrove/entry:4", name: "Smugglers", content: "Keywords: smugglers\n\nThe harbour master takes bribes from smugglers." },
      {
        key: "st:mira-ashgrove/notes",
        name: "Mira Ashgrove (card notes)",
        content:
          "## Creator notes\n\nWorks best with short replies.\n\n## Creator\n\nlorehold-tests\n\n## Character version\n\n1.2\n\n## First message\n\n*Mira lifts the lantern.* Another one washed in by the storm?\n\n## Alternate greeting 1\n\nThe lamp needs oil. Hand me that can.",
      },
    ]);
  });
  test("V3: decorators dropped, string ids kept as keys, a V1 card's description stands in for its personality", () => {
    const ctx = newCtx();
    const p = createProject(ctx, { name: "Clocks" }).id;
    importCardBytes(ctx, bytesOf(ODO_V3), { projectId: p });
    expect(docsOf(ctx, p)).toContainEqual({ key: "st:odo/entry:esc", name: "escapement", tags: ["st:odo"], content: "Keywords: escapement\n\nAn escapement is the heart of every clock Odo ever built." });
    importCardBytes(ctx, bytesOf({ name: "Bran", description: "A ferryman.", personality: "", scenario: "", first_mes: "", mes_example: "" }), { projectId: p });
    expect(exportPack(ctx, p).minds?.find((m) => m.key === "st:bran")).toMatchObject({ personality: "A ferryman.", knowledgeTags: ["st:bran"] });
  });
  test("re-import is idempotent: same ids, same rows; an edited card updates in place", () => {
    const ctx = newCtx();
    const p = createProject(ctx, { name: "Saltmere" }).id;
    const a = importCardBytes(ctx, bytesOf(MIRA_V2), { projectId: p });
    const rows = countRows(ctx, p);
    const b = importCardBytes(ctx, png(tEXt("chara", b64(MIRA_V2))), { projectId: p });
    expect(b.ids).toEqual(a.ids);
    expect(countRows(ctx, p)).toEqual(rows);
    const book = structuredClone(MIRA_V2.data.character_book);
    book.entries[3].enabled = true; // the smugglers entry is switched on
    book.entries[1].content = "The lamp went dark last winter.";
    const c = importCardBytes(ctx, bytesOf({ ...MIRA_V2, data: { ...MIRA_V2.data, character_book: book } }), { projectId: p });
    expect(c.ids.documents).toEqual(a.ids.documents);
    const docs = docsOf(ctx, p);
    expect(docs.find((d) => d.key === "st:mira-ashgrove/entry:4")!.tags).toEqual(["st:mira-ashgrove"]);
    expect(docs.find((d) => d.key === "st:mira-ashgrove/entry:2")!.content).toBe("Keywords: lighthouse, lamp\n\nThe lamp went dark last winter.");
  });
  test("a card whose fields do not fit is refused in the card's words, and nothing is written", async () => {
    const ctx = newCtx();
    const p = createProject(ctx, { name: "Saltmere" }).id;
    const before = dumpDb(ctx);
    const long = { ...MIRA_V2, data: { ...MIRA_V2.data, name: "N".repeat(201), system_prompt: `ok\n${"x".repeat(1001)}` } };
    expect(await apiErrorOf(() => importCardBytes(ctx, bytesOf(long), { projectId: p }))).toEqual({
      status: 400,
      error: "Invalid character card",
      details: ["data.name: at most 200 characters", "data.system_prompt (a line): at most 1000 characters"],
    });
    const blank = { ...MIRA_V2, data: { ...MIRA_V2.data, personality: "", description: " " } };
    expect((await apiErrorOf(() => importCardBytes(ctx, bytesOf(blank), { projectId: p }))).details).toEqual([
      "data.personality (empty, and so is data.description): must be a non-empty string",
    ]);
    expect(dumpDb(ctx)).toBe(before);
  });
});

describe("standalone lorebooks", () => {
  test("World Info attached to an existing mind: the mind keeps its fields and gains the book's tag", () => {
    const ctx = newCtx();
    const p = createProject(ctx, { name: "Saltmere" }).id;
    const card = importCardBytes(ctx, bytesOf(MIRA_V2), { projectId: p });
    const mindBefore = exportPack(ctx, p).minds![0];
    const r = importCardBytes(ctx, bytesOf(WORLD_INFO), { projectId: p, mindId: card.mindId! });
    expect(r).toMatchObject({ kind: "lorebook", tag: "st:saltmere-bestiary", mindId: card.mindId, entries: { documents: 2, disabled: 1 } });
    expect(exportPack(ctx, p).minds![0]).toEqual({ ...mindBefore, knowledgeTags: ["st:mira-ashgrove", "st:saltmere-bestiary"] });
    const docs = docsOf(ctx, p).filter((d) => d.key.startsWith("lorebook:"));
    expect(docs).toEqual([
      { key: "lorebook:saltmere-bestiary/entry:0", name: "The Kraken", tags: ["st:saltmere-bestiary"], content: "Keywords: kraken\n\nA kraken sleeps under Saltmere bay; its waking drowns ships." },
      { key: "lorebook:saltmere-bestiary/entry:1", name: "Selkies", content: "Keywords: selkie, seal, skin\n\nSelkies shed their seal skins on the rocks at midsummer." },
    ]);
    // idempotent, the mind attached once
    const again = importCardBytes(ctx, bytesOf(WORLD_INFO), { projectId: p, mindId: card.mindId! });
    expect(again.ids).toEqual(r.ids);
    expect(exportPack(ctx, p).minds![0].knowledgeTags).toEqual(["st:mira-ashgrove", "st:saltmere-bestiary"]);
  });
  test("a V3 lorebook without a project creates one named after the book; unknown mind is 404", async () => {
    const ctx = newCtx();
    const r = importCardBytes(ctx, bytesOf(LOREBOOK_V3));
    expect(exportPack(ctx, r.projectId).project!.name).toBe("Clockwork Lore");
    expect(await apiErrorOf(() => importCardBytes(ctx, bytesOf(LOREBOOK_V3), { projectId: r.projectId, mindId: "mind_nope" }))).toEqual({
      status: 404, error: "Entity Mind not found", details: [],
    });
    expect((await apiErrorOf(() => importCardBytes(ctx, bytesOf(MIRA_V2), { projectId: r.projectId, mindId: "x" }))).error).toBe("Invalid character card");
  });
});

describe("export as a Card V2", () => {
  test("a card round-trips through export: fields, visible entries with their keys, the constant entry", () => {
    const ctx = newCtx();
    const p = createProject(ctx, { name: "Saltmere" }).id;
    const r = importCardBytes(ctx, bytesOf(MIRA_V2), { projectId: p });
    const card = exportCard(ctx, p, r.mindId!);
    expect(card.spec).toBe("chara_card_v2");
    expect(card.data).toMatchObject({
      name: "Mira Ashgrove",
      description: "Mira Ashgrove keeps the lighthouse of Saltmere. She lost her brother to the Drowned Fleet.",
      scenario: "the player arrives at the lighthouse during a storm.",
      personality: MIRA_V2.data.personality,
      first_mes: MIRA_V2.data.first_mes,
      mes_example: "the player: Who are you?\nMira Ashgrove: The one who keeps you off the rocks.",
      creator_notes: "Works best with short replies.",
      system_prompt: "Speak in short, weathered sentences.",
      post_history_instructions: MIRA_V2.data.post_history_instructions,
      alternate_greetings: MIRA_V2.data.alternate_greetings,
      creator: "lorehold-tests",
      character_version: "1.2",
    });
    // the disabled entry and the notes are seen by no mind, so they are not exported
    expect(card.data.character_book!.entries.map((e) => [e.name, e.keys, e.constant, e.content])).toEqual([
      ["What Mira Ashgrove knows", ["Mira Ashgrove"], true, "Saltmere is a fishing town on a cold northern coast."],
      ["The Drowned Fleet", ["Drowned Fleet", "fleet", "ghost", "ships"], false, MIRA_V2.data.character_book.entries[0].content],
      ["Saltmere Lighthouse", ["lighthouse", "lamp"], false, MIRA_V2.data.character_book.entries[1].content],
    ]);
    // and the exported PNG imports back as the same character
    const back = readCardBytes(cardToPng(card));
    expect(back).toMatchObject({ kind: "card", format: "png", card: { name: "Mira Ashgrove" } });
    const q = createProject(ctx, { name: "Copy" }).id;
    const again = importCardBytes(ctx, cardToPng(card), { projectId: q });
    expect(exportPack(ctx, q).minds![0]).toMatchObject({ personality: MIRA_V2.data.personality, knowledgeDescription: "Saltmere is a fishing town on a cold northern coast." });
    expect(again.entries).toEqual({ documents: 2, constant: 1, disabled: 0 });
  });
  test("an unknown mind is 404", async () => {
    const ctx = newCtx();
    const p = createProject(ctx, { name: "x" }).id;
    expect((await apiErrorOf(() => exportCard(ctx, p, "mind_nope"))).status).toBe(404);
  });
});
