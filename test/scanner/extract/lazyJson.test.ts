import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { extractFile } from "../../../src/scanner/extract/index.ts";
import { LazyJson } from "../../../src/scanner/extract/lazyJson.ts";
import { SectionCollector } from "../../../src/scanner/extract/SectionCollector.ts";
import { walkStructured } from "../../../src/scanner/extract/walkStructured.ts";

// To bound memory: a big JSON file is read a container at a time. Read lazily — every container
// left unparsed until the walker reaches it (parseWhole 0) — a file must give exactly the sections
// of the file parsed whole.
const OPTS = { objectKind: "json-object", stringKind: "json-string" };
const walk = (data: unknown) => {
  const out = new SectionCollector("data/file.json");
  walkStructured(data, out, OPTS);
  return out.finish();
};

const DIALOGUE_DB = {
  Version: "1.0",
  Actors: [
    { Name: "Wren", Description: "Wren ferries travellers across the Black River for two copper coins and a story." },
    { Name: "Garrick", Description: "Garrick keeps the Rusty Tankard and remembers every debt in Thornhaven.", tags: ["tavern", "town-history"] },
  ],
  Conversations: [
    {
      Title: "At the ferry",
      DialogueEntries: [
        { Actor: "Wren", DialogueText: "Two coppers, or a story I have not heard. The river takes either." },
        { Actor: "Player", DialogueText: "What happened to the old bridge?", conditions: { quest: "bridge", stage: 2 } },
      ],
    },
  ],
};

const CASES: [string, unknown][] = [
  ["a dialogue database (arrays of records inside an object)", DIALOGUE_DB],
  ["a catalog of keyed strings", { sword_name: "Oathkeeper", sword_desc: "A blade that will not cut a sworn friend, forged at the abbey.", shield_name: "Black Rook Shield", shield_desc: "The smugglers' crest, painted over twice and showing through." }],
  ["a logbook page with a heading pair", [["Headline", "20th November 1740"], "The fog came in off the docks before dawn and stayed all day.", "Mara sold the last of the smoked eel to the abbey monks at noon."]],
  ["a text field written as a list of lines, with a tag list", { name: "Mara", lines: ["Fresh eel, smoked this morning at the docks.", "The fog keeps the customs men home."], tags: ["docks", "smugglers"], location: "the Docks" }],
  ["rumours under a key", { rumors: ["The old bridge fell the night the abbey bell rang thirteen.", "Black Rook pays in silver that never tarnishes."], meta: { count: 2, ok: true, none: null } }],
  ["escapes, unicode, empty containers and numbers", { entries: [{ title: "Élodie \"the Quiet\"", text: "She said: \\u2014 \"never\\n again\" — and left Thornhaven in 1042.", weights: [1.5, -2e3, 0], extra: {}, list: [] }] }],
  ["nested arrays of records", { chapters: [[{ name: "The Flood", summary: "In the year of the flood the river rose nine feet and took the mill." }], [{ name: "The Bell", summary: "The abbey bell was cast from the mill's iron after the flood receded." }]] }],
];

describe("LazyJson: a big file read a container at a time gives the same sections", () => {
  test.each(CASES)("%s", (_, data) => {
    const text = JSON.stringify(data, null, 2);
    const eager = walk(JSON.parse(text));
    expect(eager.sections.length).toBeGreaterThan(0);
    expect(walk(LazyJson.of(text, 0))).toEqual(eager);
    expect(walk(LazyJson.of(text, 64))).toEqual(eager);
  });

  test("the npcs.json fixture, compact and indented", () => {
    const data = JSON.parse(readFileSync(join(import.meta.dir, "fixtures/npcs.json"), "utf8"));
    for (const text of [JSON.stringify(data), JSON.stringify(data, null, 4)]) expect(walk(LazyJson.of(text, 0))).toEqual(walk(data));
  });

  test("a file over 1 MB goes the lazy way through extractFile and keeps every record", () => {
    const records = Array.from({ length: 7000 }, (_, i) => ({ id: i, name: `Keeper ${i}`, description: `Keeper ${i} tends lighthouse number ${i} on the cliffs north of Thornhaven, and logs every ship.` }));
    const text = JSON.stringify({ lighthouses: records }, null, 1);
    expect(text.length).toBeGreaterThan(1024 * 1024);
    const lazy = extractFile("data/lighthouses.json", text);
    const eager = walk(JSON.parse(text));
    expect(lazy.sections.map((s) => s.title)).toEqual(eager.sections.map((s) => s.title));
    expect(lazy.sections.length).toBe(7000);
  });

  test("a big file with comments and trailing commas is read too", () => {
    const body = Array.from({ length: 12000 }, (_, i) => `  // keeper ${i}\n  { "name": "Keeper ${i}", "description": "Keeper ${i} tends a lighthouse on the cliffs north of Thornhaven.", },`).join("\n");
    const text = `[\n${body}\n]\n`;
    expect(text.length).toBeGreaterThan(1024 * 1024);
    const lazy = extractFile("data/keepers.json", text);
    expect(lazy.sections.length).toBe(12000);
    expect(lazy.sections[11999].title).toBe("Keeper 11999");
  });

  test.each([
    ["a broken member", '{"ok": {"name": "Wren", "description": "Wren ferries travellers across the Black River for coins."}, "bad": {"name": tru}}', "Wren"],
    ["an unterminated string", '{"ok": [{"name": "Wren", "description": "Wren ferries travellers across the Black River for coins."}], "bad": {"name": "x', null],
  ])("%s: reported as a parse skip, not a crash", (_, text, kept) => {
    const out = walk(LazyJson.of(text as string, 0));
    expect(out.skipped.some((s) => s.reason.startsWith("Parse error: "))).toBe(true);
    if (kept) expect(out.sections.map((s) => s.title)).toContain(kept);
  });
});
