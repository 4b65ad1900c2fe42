import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type Section, classify, extractFile } from "../../../src/scanner/extract/index.ts";

const PROJECT = { tags: ["tavern", "town-history", "wolves"], locations: ["Thornhaven", "Old Mill", "North Road"] };

function section(over: Partial<Section> & { text: string }): Section {
  return { title: "Untitled", sourceFile: "lore/a.md", kind: "markdown-heading", ...over };
}

// Tags and locations match as case-sensitive proper nouns (the name as written or its
// Title Case form, hyphens read as spaces), never as a one-word name at the start of a sentence.
describe("classify: tags", () => {
  test("project tags match as proper nouns: Title Case, hyphens as spaces, whole words", () => {
    const [c] = classify([section({ title: "Town History", text: "All met at the Tavern; the Wolves came later." })], PROJECT);
    expect(c.tags).toEqual(["tavern", "town-history", "wolves"]);
    expect(c.review.reasons).toEqual({ tavern: "'tavern' in the text ×1", "town-history": "'town-history' in the title", wolves: "'wolves' in the text ×1" });
  });

  test("common words and sentence-initial one-word names are not tags", () => {
    const [c] = classify([section({ text: "The TAVERN was the first building; wolves came later. Tavern keepers came after." })], PROJECT);
    expect(c.tags).toEqual([]);
  });

  test("a tag inside a longer word does not match", () => {
    const [c] = classify([section({ text: "The tavernkeeper of the townhistory society howled like the wolvesbane." })], PROJECT);
    expect(c.tags).toEqual([]);
  });

  test("hints from front matter or passage tags count even when the words are absent", () => {
    const [c] = classify([section({ text: "Nobody remembers who laid the first stone of the chapel.", hints: { tags: ["Town History", "unknown-tag"] } })], PROJECT);
    expect(c.tags).toEqual(["town-history"]);
  });

  test("tags come back in the project's order with the project's spelling", () => {
    const [c] = classify([section({ text: "By the Town History museum and the old Tavern, the Wolves prowl." })], PROJECT);
    expect(c.tags).toEqual(["tavern", "town-history", "wolves"]);
  });
});

describe("classify: location", () => {
  test("the location mentioned most wins", () => {
    const [c] = classify([section({ text: "From Thornhaven the North Road runs past the Old Mill; the Old Mill burned twice, yet the Old Mill's wheel still turns (the old mill is not a name)." })], PROJECT);
    expect(c.location).toBe("Old Mill");
  });

  test("a mention in the title weighs more than one in the text", () => {
    const [c] = classify([section({ title: "Thornhaven", text: "The old mill stands east of town, the Old Mill that everyone fears." })], PROJECT);
    expect(c.location).toBe("Thornhaven");
  });

  test("a location hint counts; no mention at all gives null", () => {
    const [hinted, none] = classify(
      [
        section({ text: "A quiet place where nothing much ever happens to anyone.", hints: { location: "north road" } }),
        section({ title: "Elsewhere", text: "A far-away land beyond every map the guild has ever drawn." }),
      ],
      PROJECT,
    );
    expect(hinted.location).toBe("North Road");
    expect(none.location).toBeNull();
  });
});

describe("classify: duplicates across files", () => {
  test("the same text in two formats becomes one candidate with both source files", () => {
    const md = "# Garrick\n\nCheerful innkeeper of the **Rusty Tankard** who loves gossip.";
    const json = JSON.stringify({ npcs: [{ name: "Garrick", description: "Cheerful innkeeper of the Rusty Tankard who loves gossip." }] });
    const sections = [...extractFile("lore/garrick.md", md).sections, ...extractFile("data/npcs.json", json).sections];
    expect(sections).toHaveLength(2);
    const candidates = classify(sections, PROJECT);
    expect(candidates).toHaveLength(1);
    expect(candidates[0].sourceFiles).toEqual(["lore/garrick.md", "data/npcs.json"]);
    expect(candidates[0].title).toBe("Garrick");
  });

  test("same title and near-identical text merge; same title and different text do not", () => {
    const base = "The bell tower of Thornhaven rings at midnight when nobody is there to pull the rope, and the whole town wakes to count the strokes";
    const candidates = classify(
      [
        section({ title: "Bell Tower", text: `${base}.`, sourceFile: "a.md" }),
        section({ title: "Bell tower", text: `${base} again.`, sourceFile: "b.txt", kind: "prose" }),
        section({ title: "Bell Tower", text: "The tower was built by the river traders who founded the town long ago.", sourceFile: "c.md" }),
      ],
      PROJECT,
    );
    expect(candidates.map((c) => c.sourceFiles)).toEqual([["a.md", "b.txt"], ["c.md"]]);
  });

  test("tags are unioned and confidence rises for each extra source file", () => {
    const text = "Garrick keeps the Tavern open all night since the Wolves came down from the hills.";
    const single = classify([section({ text, sourceFile: "a.md" })], PROJECT)[0];
    const merged = classify(
      [section({ text, sourceFile: "a.md" }), section({ text, sourceFile: "b.md", hints: { tags: ["town-history"] } })],
      PROJECT,
    )[0];
    expect(merged.tags).toEqual(["tavern", "town-history", "wolves"]);
    expect(merged.confidence).toBeGreaterThan(single.confidence);
  });
});

describe("classify: confidence and preview", () => {
  const prose = "Garrick has kept the Rusty Tankard for thirty years and knows every traveller by name.";

  test("a titled object beats a heading section, which beats a code string, at equal text", () => {
    const candidates = classify(
      [
        section({ title: "Garrick", kind: "json-object", text: `${prose} One.`, sourceFile: "npcs.json" }),
        section({ title: "Garrick", kind: "markdown-heading", text: `${prose} Two, two.`, sourceFile: "lore.md" }),
        section({ title: "Barks #3", kind: "code-string", text: `${prose} Three, three.`, sourceFile: "Barks.cs", titled: false }),
      ],
      { tags: [], locations: [] },
    );
    const [obj, heading, code] = candidates.map((c) => c.confidence);
    expect(obj).toBeGreaterThan(heading);
    expect(heading).toBeGreaterThan(code);
  });

  // Confidence scores what is lore, not length.
  test("length does not raise confidence; tag/location matches do; values stay in [0,1]", () => {
    const short = classify([section({ text: prose })], { tags: [], locations: [] })[0].confidence;
    const long = classify([section({ text: `${prose} `.repeat(20) })], { tags: [], locations: [] })[0].confidence;
    const matched = classify([section({ title: "Thornhaven", text: `${prose} `.repeat(20) + " By the Tavern, the Wolves." })], PROJECT)[0].confidence;
    expect(long).toBe(short);
    expect(matched).toBeGreaterThan(long);
    expect(matched).toBeLessThanOrEqual(1);
    expect(short).toBeGreaterThanOrEqual(0);
  });

  test("the formula's exact value for one section", () => {
    // 0.30 heading section + 0.20 meaningful title + 0 kind ("other") + 0.15 proper nouns (2 of 12 words ≥ 4%)
    // + 0.10 reads as sentences + 0.05 × (1 tag + 1 location)
    const text = "The Tavern in Thornhaven serves stew and ale to every weary traveller.";
    const [c] = classify([section({ title: "Supper", text })], PROJECT);
    expect(c.review.kind).toBe("other");
    expect(c.confidence).toBe(0.85);
    // A kind known from the path adds 0.15; an untitled section loses the title's 0.20.
    expect(classify([section({ title: "Supper", text, sourceFile: "lore/characters.md" })], PROJECT)[0].confidence).toBe(1);
    expect(classify([section({ title: "a #1", text, titled: false })], PROJECT)[0].confidence).toBe(0.65);
  });

  test("contentPreview is exactly the first 200 characters", () => {
    const long = "Thornhaven ".repeat(40).trim();
    const [c] = classify([section({ text: long })], PROJECT);
    expect(c.contentPreview).toHaveLength(200);
    expect(c.contentPreview).toBe(long.slice(0, 200));
    expect(c.text).toBe(long);
    const [s] = classify([section({ text: prose })], PROJECT);
    expect(s.contentPreview).toBe(prose);
  });

  test("contentPreview never splits a surrogate pair", () => {
    const text = "🐺".repeat(300) + " wolves of the northern hills";
    const [c] = classify([section({ text })], PROJECT);
    expect([...c.contentPreview]).toHaveLength(200);
  });

  test("deterministic: the same input gives the same candidates in first-seen order", () => {
    const dir = join(import.meta.dir, "fixtures");
    const files = ["lore.md", "npcs.json", "tavern.ink", "dialogue.csv", "Garrick.asset", "fr.po"];
    const sections = files.flatMap((f) => extractFile(f, readFileSync(join(dir, f), "utf8")).sections);
    const a = classify(sections, PROJECT);
    const b = classify(sections, PROJECT);
    expect(a).toEqual(b);
    expect(a[0].sourceFiles).toEqual(["lore.md"]);
    expect(a.every((c) => c.confidence >= 0 && c.confidence <= 1 && c.sourceFiles.length >= 1)).toBe(true);
  });
});
