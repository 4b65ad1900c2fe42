import { describe, expect, test } from "bun:test";
import { extractFile } from "../../../src/scanner/extract/index.ts";
import { SKIP } from "../../../src/scanner/extract/text.ts";
import { MECHANICS } from "../../../src/scanner/extract/formats/records.ts";
import { isStatText, isTechnicalText } from "../../../src/scanner/extract/techText.ts";

/**
 * Scanner v2.1 (issue 12, candidates per MB): what a project with no lore yields, UI/developer text of
 * fine-grained entries, stat templates, one list of short entries per file, and doc comments of code.
 */
const titles = (path: string, content: string) => extractFile(path, content).sections.map((s) => s.title);
const skips = (path: string, content: string) => extractFile(path, content).skipped.map((s) => `${s.section} | ${s.reason}`);

describe("technical and stat text", () => {
  const cases: [string, boolean, boolean][] = [
    // text, technical, stat
    ["Left click: rotate the map; mouse wheel: zoom", true, false],
    ["The Unity Input System package is installed, but not enabled.", true, false],
    ["You are attempting to convert a null Task into a YarnTask.", true, false],
    ["Loading system fonts is not supported on the Web platform (debug builds only).", true, false],
    ["Garrick trades gossip for coin and never forgets a face.", false, false],
    ["The mouse ran under the altar of Stendarr.", false, false],
    ["Deliver the package to the Fighters Guild in Daggerfall.", false, false],
    ["Heal Intelligence Duration: %bdr + %adr per %cld level(s) Chance: %bch Magnitude: N/A", false, true],
    ["Strength: 10\nWisdom: 12\nCharisma: 8", false, true],
    ["Duration: a whole winter. The siege of Wayrest lasted until the thaw.", false, false],
  ];
  for (const [text, tech, stat] of cases) {
    test(text, () => {
      expect(isTechnicalText(text)).toBe(tech);
      expect(isStatText(text)).toBe(stat);
    });
  }
});

describe("fine-grained entries: what stays a candidate, what is counted", () => {
  const csv = [
    "Key,English",
    "arkayDesc,God of Birth and Death",
    "automapToolTipRotateLeft,left click: rotate dungeon to the left",
    "menuQuitButton,Do you really want to leave Tamriel behind?",
    "oldSaveNoTrade,Old indoor save loaded: the trade window will not work in this build (debug).",
    "spellHeal,Heal Duration: %bdr Chance: %bch Magnitude: %1bm",
    "legendOfWren,Wren was founded by a ferryman who refused to pay the toll of the river spirits and won.",
  ].join("\n");
  test("a keyed table: lore keys and prose stay; tooltips, buttons, developer notes and stat templates are counted", () => {
    expect(titles("Text/Internal_Strings.csv", csv)).toEqual(["arkayDesc", "legendOfWren"]);
    expect(skips("Text/Internal_Strings.csv", csv)).toEqual([`3 entries | ${SKIP.uiText}`, `1 entry | ${SKIP.statText}`]);
  });

  test("a Godot scene: controls and short labels are UI, a narrative label stays", () => {
    const tscn = [
      "[gd_scene format=3]",
      '[node name="Root" type="Control"]',
      '[node name="Intro" type="Label" parent="."]',
      'text = "Long before the towers fell, the river folk of Saltmere kept the old songs alive in winter."',
      '[node name="Hint" type="Label" parent="."]',
      'text = "Brush size:"',
      '[node name="Help" type="RichTextLabel" parent="."]',
      'text = "Click a button to reassign its action key, or use the gamepad to select a slot."',
      '[node name="Ok" type="Button" parent="."]',
      'text = "Continue the journey"',
      '[node name="Name" type="LineEdit" parent="."]',
      'placeholder_text = "Enter a name for your hero"',
    ].join("\n");
    expect(titles("ui/intro.tscn", tscn)).toEqual(["Intro"]);
    expect(skips("ui/intro.tscn", tscn)).toEqual([`2 controls (buttons, fields, lists) | ${SKIP.uiText}`, `1 short entry | ${SKIP.shortUi}`, `1 entry | ${SKIP.uiText}`]);
  });

  test("C#: editor tooltips, formatted exception messages and member doc comments are not lore", () => {
    const cs = [
      "[CreateAssetMenu]",
      "/// The relics of the Ember Order, each with the story of who carried it.",
      "public class Relic : ScriptableObject {",
      '  [Tooltip("The dialogue runner that will receive requests to advance content.")]',
      "  public DialogueRunner runner;",
      "  /// The colour to use for text associated with this marker.",
      "  public Color colour;",
      "  /// Forged in the abbey ruins by the last smith of Thornhaven, it never cools.",
      "  public string legend;",
      "  /// Glows when the bearer lies.",
      "  public bool Glows() { return true; }",
      '  void Load(string id) { throw new Exception(string.Format("Could not load relic \'{0}\' or its file is empty.", id)); }',
      '  public string Greeting = "Welcome, traveller! The relics of the Ember Order rest here.";',
      "}",
    ].join("\n");
    expect(extractFile("Assets/Relic.cs", cs).sections.map((s) => s.text)).toEqual([
      "The relics of the Ember Order, each with the story of who carried it.",
      "Forged in the abbey ruins by the last smith of Thornhaven, it never cools.",
      "Welcome, traveller! The relics of the Ember Order rest here.",
    ]);
  });
});

describe("one list of short entries per file", () => {
  test("2,000 location names are one candidate, not one per 4,000 characters", () => {
    const rows = ["Key,English", ...Array.from({ length: 2000 }, (_, i) => `${i + 1},The Rusty Dagger Inn of Hearthton ${String.fromCharCode(65 + (i % 26))}${i}`)];
    const s = extractFile("Text/Internal_Locations.csv", rows.join("\n")).sections;
    expect(s.map((x) => x.title)).toEqual(["Internal_Locations — short entries"]);
    expect(s[0].text.split("\n")).toHaveLength(2000);
  });
});

describe("record files of rules are mechanics", () => {
  const terrain = "name:granite wall\ngraphics:#:W\ndesc:A seam of granite.\n\nname:lava\ngraphics:#:r\ndesc:A stream of hot lava.\n";
  for (const path of ["lib/gamedata/terrain.txt", "lib/gamedata/curse.txt", "lib/gamedata/ego_item.txt", "lib/gamedata/flavor.txt"]) {
    test(`${path} is skipped as mechanics`, () => expect(extractFile(path, terrain).skipped.map((s) => s.reason)).toEqual([MECHANICS]));
  }
  test("monster.txt is not", () => expect(titles("lib/gamedata/monster.txt", terrain)).toEqual(["granite wall", "lava"]));
});
