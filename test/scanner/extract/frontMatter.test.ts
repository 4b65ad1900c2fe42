import { describe, expect, test } from "bun:test";
import { parse } from "yaml";
import { splitFrontMatter } from "../../../src/scanner/extract/frontMatter.ts";

/** For speed: flat front matter is read by hand; every case must read as the YAML parser reads it. */
describe("front matter: the hand reader agrees with the YAML parser", () => {
  const cases: [string, string][] = [
    ["flat", "title: The Amunorian Empire\ntags: [country, culture, history]\nlocation: Sarathis"],
    ["block list", "title: Shani\ntags:\n  - deity\n  - death\nlocation: Veyr"],
    ["quoted", "title: \"The Black Hand\"\naliases: [Sarathim, \"The Sarathim\", 'the Sarathim']\ntags: ['faction', \"it''s\"]"],
    ["comments and blank lines", "# a note\ntitle: Xanar\n\ntags: [city]   \n"],
    ["a null key", "title: Veyr\nlocation:\ntags: [city]"],
    ["a number title goes to the parser", "title: 1984\ntags: [year]"],
    ["a boolean", "title: Yes\ntags: [x]"],
    ["nested map goes to the parser", "title: Halflings\nmeta:\n  canon: established\ntags: [people]"],
    ["block scalar", "title: Archons\nsummary: |\n  Coherence enforcement.\ntags: [entity]"],
    ["colon inside a value", "title: Demon War: the first age\ntags: [war]"],
    ["escapes in double quotes", 'title: "Line\\tTab"\ntags: [x]'],
    ["a comment after a value", "title: Obsidian Sanctum # sealed\ntags: [place]"],
  ];
  for (const [name, yaml] of cases) {
    test(name, () => {
      const got = splitFrontMatter(`---\n${yaml}\n---\nBody text.`);
      let ref: any;
      try {
        ref = parse(yaml);
      } catch {
        ref = "error";
      }
      if (ref === "error") return expect(got.error).toEqual(expect.any(String));
      expect(got.error).toBeUndefined();
      expect(got.body).toBe("Body text.");
      expect(got.title).toBe(typeof ref.title === "string" ? ref.title : typeof ref.name === "string" ? ref.name : undefined);
      const tags = Array.isArray(ref.tags) ? ref.tags.map(String) : [];
      expect(got.hints?.tags ?? []).toEqual(tags);
      expect(got.hints?.location).toBe(typeof ref.location === "string" ? ref.location : undefined);
    });
  }

  test("a duplicate key is the parser's error, as before", () => {
    expect(splitFrontMatter("---\ntitle: A\ntitle: B\n---\nx").error).toMatch(/unique|duplicate/i);
  });
});
