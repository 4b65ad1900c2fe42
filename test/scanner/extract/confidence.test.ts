import { describe, expect, test } from "bun:test";
import { confidenceOf } from "../../../src/scanner/extract/review.ts";
import type { Section } from "../../../src/scanner/extract/types.ts";

/**
 * Scanner v3.2, confidence calibrated on the judged samples (BENCHMARKS "Scanner v3.2"): an engine's string table
 * holds its encyclopedia and briefings beside its option descriptions and warnings, and every value scored the
 * same 0.40 whatever it said — so judged lore from a string table scored below judged noise elsewhere. A value
 * that is a paragraph of prose now scores as prose; the short values beside it do not move.
 */
const entry = (text: string, kind = "yaml-string"): Section => ({ title: "STR_ENTRY", text, sourceFile: "game/Language/en-US.yml", kind });
const score = (s: Section) => confidenceOf(s, "other", [], 0);

const encyclopedia =
  "Living aliens are likely to require a special habitat to maintain their life systems. The containment facility can keep up to ten alien life forms in self-contained units, and the scientists study them there.";
const option = "Automatically saves the game at specified intervals. Does not apply to Ironman Mode.";
const warning = "CANNOT BUILD HERE! You must build next to an existing pod.";

describe("a string table's paragraph scores as prose", () => {
  test("it scores as the same paragraph would in a prose document", () => {
    expect(score(entry(encyclopedia))).toBe(score(entry(encyclopedia, "prose")));
  });

  test("an encyclopedia paragraph in a string table scores above a warning beside it", () => {
    expect(score(entry(encyclopedia))).toBeGreaterThan(score(entry(warning)) + 0.1);
  });
});

describe("what the calibration leaves alone", () => {
  test("short values keep the loose-string base, 0.15 below the same text in a prose document", () => {
    for (const t of [option, warning, "Geoscape viewport scaling mode, based on a fixed resolution (stretched to fit), or a fixed zoom level."]) {
      expect(score(entry(t, "prose")) - score(entry(t))).toBeCloseTo(0.15, 5);
    }
  });

  test("a list of names is not a paragraph, however long", () => {
    const names = Array.from({ length: 40 }, (_, i) => `Captain Name${i} of the fleet.`).join(" ");
    expect(score(entry(names, "name-list"))).toBeLessThan(score(entry(names, "prose")));
  });

  test("records are scored as before, above loose prose", () => {
    expect(score(entry(encyclopedia, "json-object"))).toBeGreaterThan(score(entry(encyclopedia)));
  });
});
