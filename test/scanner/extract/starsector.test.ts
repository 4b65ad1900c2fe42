import { describe, expect, test } from "bun:test";
import { extractFile } from "../../../src/scanner/extract/index.ts";
import { relaxJson } from "../../../src/scanner/extract/relaxedJson.ts";

const DESCRIPTIONS = `id,type,text1,text2,text3,text4,text5,notes
,,,,,,,
sotf_dustkeepers,FACTION,"The Dustkeeper Contingency is a linked network of artificial personas, pseudorandomly-generated descendants of a single root intelligence.",,,,,
# SIERRA,,,,,,,
sotf_pledge,SHIP,"A unique derivative of the Fulgent drone destroyer.

Despite this, the Pledge has no manual controls.","UNKNOWN ENTRY","A ship that answers to no one, its hull humming with a voice.",,,check the sprite
`;

describe("Starsector", () => {
  test("descriptions.csv: each row's text columns are one description titled by its id and type", () => {
    const { sections } = extractFile("data/strings/descriptions.csv", DESCRIPTIONS);
    expect(sections.map((s) => [s.title, s.reviewKind])).toEqual([
      ["sotf_dustkeepers (faction)", "faction"],
      ["sotf_pledge (ship)", "item"],
    ]);
    expect(sections[0].text).toContain("linked network of artificial personas");
    // Every text column, the modder's notes left out; the `# SIERRA` comment row is no entry.
    expect(sections[1].text).toBe("A unique derivative of the Fulgent drone destroyer.\n\nDespite this, the Pledge has no manual controls.\n\nUNKNOWN ENTRY\n\nA ship that answers to no one, its hull humming with a voice.");
    expect(sections.map((s) => s.text).join("\n")).not.toContain("check the sprite");
  });

  test("loose JSON: # comments, bare keys and bare words parse", () => {
    const tips = `{
\ttips:[
\t{"freq":0.75, "tip":"At world's end, kindness and fellowship is all we have. Treasure your friendships."}, # a comment
\t#"an old tip, commented out",
\t],
\t"layers":[STATIONS], # GLOW or SMOKE
\t"alphaMult":0.5f, "num":1F,
}`;
    expect(JSON.parse(relaxJson(tips))).toEqual({ tips: [{ freq: 0.75, tip: "At world's end, kindness and fellowship is all we have. Treasure your friendships." }], layers: ["STATIONS"], alphaMult: 0.5, num: 1 });
    const { sections, skipped } = extractFile("data/strings/tips.json", tips);
    expect(skipped.some((s) => s.reason.startsWith("Parse error"))).toBe(false);
    expect(sections.some((s) => s.text.includes("At world's end, kindness and fellowship"))).toBe(true);
  });

  test("strict JSON reads the same: # and words inside strings are untouched", () => {
    const strict = `{"title":"Issue #5: true words, 0.5f","items":[true,false,null,"a:b"],"n":-1.5e3}`;
    expect(relaxJson(strict)).toBe(strict);
  });
});

test("a combat-chatter character's lines are one speaker's dialogue, titled by the character's name", () => {
  const barrow = `{
\t# used by Dauntless-Annex-Barrow, Dustkeeper oldguard
\t"name":"Barrow",
\t"chance":0, # set via memory
\t"lines":{
\t\t"start":[
\t\t\t{"text":"A cold hell is wrought for the dregs of humanity."},
\t\t\t{"text":"To victory or dust."},
\t\t],
\t\t"retreat":[
\t\t\t# none yet
\t\t],
\t\t"hull_50":[{"text":"We withdraw to pick the shells out of our hides for another battle."}],
\t},
}`;
  const { sections } = extractFile("data/config/chatter/characters/sotf_barrow.json", barrow);
  expect(sections.map((s) => [s.title, s.reviewKind])).toEqual([["Barrow", "dialogue"]]);
  expect(sections[0].text).toBe("A cold hell is wrought for the dregs of humanity.\n\nTo victory or dust.\n\nWe withdraw to pick the shells out of our hides for another battle.");
});
