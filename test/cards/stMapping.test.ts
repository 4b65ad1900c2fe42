import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { importCardBytes } from "../../src/cards/importCard.ts";
import { exportPack } from "../../src/packs/exportPack.ts";
import { apiErrorOf, countRows, newCtx } from "../packs/helpers.ts";
import { bytesOf } from "./fixtures.ts";

/**
 * SillyTavern's keyword activation, selective logic and timed effects, mapped to the closest Lorehold form
 * and reported per entry: a realistic World Info export (every field SillyTavern writes), the same entries
 * in a V2 card's character_book (SillyTavern keeps its own settings under each entry's `extensions`), and a
 * V3 lorebook.
 */

const WORLD_INFO = JSON.parse(readFileSync(join(import.meta.dir, "fixtures/stWorldInfo.json"), "utf8"));

/** The World Info entries as SillyTavern's card export writes them (spec fields + snake_case extensions). */
function asCharacterBook() {
  return Object.values(WORLD_INFO.entries as Record<string, any>).map((e) => ({
    id: e.uid,
    keys: e.key,
    secondary_keys: e.keysecondary,
    comment: e.comment,
    content: e.content,
    constant: e.constant,
    selective: e.selective,
    insertion_order: e.order,
    enabled: !e.disable,
    position: e.position === 0 ? "before_char" : "after_char",
    extensions: {
      position: e.position,
      selectiveLogic: e.selectiveLogic,
      probability: e.probability,
      useProbability: e.useProbability,
      depth: e.depth ?? 4,
      group: e.group ?? "",
      scan_depth: e.scanDepth ?? null,
      case_sensitive: e.caseSensitive ?? null,
      match_whole_words: e.matchWholeWords ?? null,
      exclude_recursion: e.excludeRecursion ?? false,
      sticky: e.sticky,
      cooldown: e.cooldown,
      delay: e.delay,
    },
  }));
}

const CARD = {
  spec: "chara_card_v2",
  spec_version: "2.0",
  data: { name: "Mira", description: "Keeps the Saltmere light.", personality: "Watchful.", first_mes: "Hm?", mes_example: "", scenario: "", character_book: { name: "Saltmere", entries: asCharacterBook() } },
};

const docByKey = (ctx: ReturnType<typeof newCtx>, projectId: string, suffix: string) => (exportPack(ctx, projectId).documents ?? []).find((d) => d.key.endsWith(suffix))!;

describe("a World Info export", () => {
  const ctx = newCtx();
  const r = importCardBytes(ctx, bytesOf(WORLD_INFO), { fileName: "Saltmere.json" });
  const entry = (uid: number) => r.mapping.find((m) => m.entry === `entries.${uid}`)!;

  test("one report per entry, in the file's order, each naming its document", () => {
    expect(r.mapping.map((m) => [m.entry, m.name, m.documentKey])).toEqual([
      ["entries.0", "Saltmere", "lorebook:saltmere/entry:0"],
      ["entries.1", "The Drowned Fleet", "lorebook:saltmere/entry:1"],
      ["entries.2", "Lighthouse, calm weather", "lorebook:saltmere/entry:2"],
      ["entries.3", "The Fleet's gold", "lorebook:saltmere/entry:3"],
      ["entries.4", "Odo's secret", "lorebook:saltmere/entry:4"],
    ]);
  });
  test("keys become the Keywords line; AND ANY keeps the secondary keys there and reports the lost gate", () => {
    const d = docByKey(ctx, r.projectId, "entry:1");
    expect(d.content.split("\n")[0]).toBe("Keywords: Drowned Fleet, ghost ships, moon, night");
    expect(entry(1).mapped[0]).toContain("keys 'Drowned Fleet', 'ghost ships' → the document's Keywords line");
    expect(entry(1).notMapped).toEqual([expect.stringMatching(/^selectiveLogic AND ANY: the entry needed one of its secondary keys/)]);
  });
  test("sticky and cooldown become the document's timers, delay too", () => {
    expect(docByKey(ctx, r.projectId, "entry:1")).toMatchObject({ sticky: 3, cooldown: 2 });
    expect(docByKey(ctx, r.projectId, "entry:1").delay).toBeUndefined();
    expect(docByKey(ctx, r.projectId, "entry:2")).toMatchObject({ delay: 4 });
    expect(entry(1).mapped).toContain("sticky 3 → the document's sticky 3 (counted in the player's turns; SillyTavern counts chat messages)");
    expect(entry(2).mapped.some((m) => m.startsWith("delay 4 → the document's delay 4"))).toBe(true);
  });
  test("NOT ANY: the excluding words stay out of the text, and the exclusion is reported with probability and group", () => {
    const d = docByKey(ctx, r.projectId, "entry:2");
    expect(d.content.split("\n")[0]).toBe("Keywords: lighthouse");
    expect(d.content).not.toContain("storm");
    expect(entry(2).notMapped).toEqual([
      "probability 40%: a chance of inclusion; Lorehold includes every entry it finds",
      "group 'lighthouse-moods': inclusion groups (one entry of a group at a time) have no equivalent",
      expect.stringMatching(/^selectiveLogic NOT ANY with secondary_keys 'storm', 'wreck': an exclusion by keyword/),
    ]);
  });
  test("AND ALL, a depth position and the keyword-matching options are each reported", () => {
    const reasons = entry(3).notMapped.map((n) => n.split(":")[0]);
    expect(reasons).toEqual(["case_sensitive", "match_whole_words", "scan_depth 2", "exclude_recursion", "position 4 (depth 2)", "selectiveLogic AND ALL"]);
    expect(docByKey(ctx, r.projectId, "entry:3").content.split("\n")[0]).toBe("Keywords: gold, treasure, fleet, captain");
  });
  test("NOT ALL on a disabled entry: out of the text, reported; the document has no tag", () => {
    const d = docByKey(ctx, r.projectId, "entry:4");
    expect(d.tags ?? []).toEqual([]);
    expect(d.content.split("\n")[0]).toBe("Keywords: harbour master, Odo");
    expect(entry(4).mapped).toContain("disabled → a document with no tag, which no mind sees");
    expect(entry(4).notMapped).toEqual([expect.stringMatching(/^selectiveLogic NOT ALL with secondary_keys 'bribe'/)]);
  });
  test("constant with SillyTavern's defaults everywhere: an unconditional document, nothing reported missing", () => {
    const d = docByKey(ctx, r.projectId, "entry:0");
    expect(d.when ?? d.sticky ?? d.cooldown ?? d.delay).toBeUndefined();
    expect(entry(0).mapped[0]).toMatch(/^constant → a document with no condition or timer/);
    expect(entry(0).notMapped).toEqual([]);
  });
  test("warnings: every notMapped item as one line with its entry", () => {
    expect(r.warnings).toHaveLength(r.mapping.reduce((n, m) => n + m.notMapped.length, 0));
    expect(r.warnings).toContain("entries.2: probability 40%: a chance of inclusion; Lorehold includes every entry it finds");
  });
  test("a re-import changes nothing and reports the same", () => {
    const before = countRows(ctx, r.projectId);
    expect(before.documents).toBe(5);
    const again = importCardBytes(ctx, bytesOf(WORLD_INFO), { projectId: r.projectId, fileName: "Saltmere.json" });
    expect(countRows(ctx, r.projectId)).toEqual(before);
    expect(again.mapping).toEqual(r.mapping);
  });
});

describe("the same entries in a V2 card's character_book (settings under extensions)", () => {
  const ctx = newCtx();
  const r = importCardBytes(ctx, bytesOf(CARD));
  test("the constant entry becomes the mind's always-known text; the others map as in World Info", () => {
    const pack = exportPack(ctx, r.projectId);
    expect(pack.minds![0].knowledgeDescription).toBe("Saltmere is a fishing town on a cold northern coast, ruled by the harbour council.");
    const e0 = r.mapping.find((m) => m.entry.endsWith("entries[0]"))!;
    expect(e0.documentKey).toBeNull();
    expect(e0.mapped[0]).toMatch(/^constant → the mind's always-known text/);
    expect(docByKey(ctx, r.projectId, "entry:1")).toMatchObject({ sticky: 3, cooldown: 2 });
    expect(docByKey(ctx, r.projectId, "entry:2")).toMatchObject({ delay: 4 });
    const e3 = r.mapping.find((m) => m.entry.endsWith("entries[3]"))!;
    expect(e3.notMapped.map((n) => n.split(":")[0])).toEqual(["case_sensitive", "match_whole_words", "scan_depth 2", "exclude_recursion", "position 4 (depth 2)", "selectiveLogic AND ALL"]);
    expect(r.mapping.map((m) => m.entry)).toEqual([0, 1, 2, 3, 4].map((i) => `data.character_book.entries[${i}]`));
  });
});

describe("a V3 lorebook", () => {
  test("decorators are dropped and said so; timers from extensions", () => {
    const ctx = newCtx();
    const book = {
      spec: "lorebook_v3",
      data: {
        name: "Bells",
        entries: [{ id: 7, keys: ["bell"], content: "@@depth 2\n@@role system\nThe abbey bell cracked in the flood.", enabled: true, insertion_order: 1, use_regex: false, extensions: { sticky: 2000 } }],
      },
    };
    const r = importCardBytes(ctx, bytesOf(book));
    expect(r.mapping[0].notMapped).toEqual(["decorators @@depth 2 @@role system: dropped (no equivalent)", "sticky 2000: cut to 1000, the longest timer"]);
    expect(docByKey(ctx, r.projectId, "entry:7")).toMatchObject({ sticky: 1000, content: "Keywords: bell\n\nThe abbey bell cracked in the flood." });
  });
  test("a malformed timer or selective logic is refused whole, named in the book's terms", async () => {
    const ctx = newCtx();
    const bad = { entries: [{ keys: ["a"], content: "x", selectiveLogic: 7, extensions: { delay: -1 } }, { keys: ["b"], content: "y", sticky: "2" }] };
    const e = await apiErrorOf(() => importCardBytes(ctx, bytesOf(bad)));
    expect(e).toMatchObject({ status: 400, error: "Invalid lorebook" });
    expect(e.details).toEqual([
      "entries[0].selectiveLogic: must be 0 (AND ANY), 1 (NOT ALL), 2 (NOT ANY) or 3 (AND ALL)",
      "entries[0].extensions.delay: must be a whole number of messages (0: off)",
      "entries[1].sticky: must be a whole number of messages (0: off)",
    ]);
    expect(ctx.db.query("SELECT COUNT(*) AS n FROM projects").get()).toEqual({ n: 0 });
  });
});
