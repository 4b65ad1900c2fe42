import { describe, expect, test } from "bun:test";
import { extractFile, planScan } from "../../../src/scanner/extract/index.ts";
import { languageOfPath } from "../../../src/scanner/extract/scanPlan.ts";
import { SKIP } from "../../../src/scanner/extract/text.ts";
import { MECHANICS } from "../../../src/scanner/extract/formats/records.ts";
import { isStatText, isTechnicalText } from "../../../src/scanner/extract/techText.ts";

/**
 * Fewer candidates per MB: what a project with no lore yields, UI/developer text of
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
    test(JSON.stringify(text), () => {
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
  test("2,000 location names are a table: counted as data, neither one candidate per 4,000 characters nor one giant one", () => {
    const rows = ["Key,English", ...Array.from({ length: 2000 }, (_, i) => `${i + 1},The Rusty Dagger Inn of Hearthton ${String.fromCharCode(65 + (i % 26))}${i}`)];
    const out = extractFile("Text/Internal_Locations.csv", rows.join("\n"));
    expect(out.sections).toHaveLength(0);
    expect(out.skipped.map((x) => `${x.section} | ${x.reason}`)).toContain(`2000 short entries | ${SKIP.shortTable}`);
  });
});

describe("record files of rules are mechanics", () => {
  const terrain = "name:granite wall\ngraphics:#:W\ndesc:A seam of granite.\n\nname:lava\ngraphics:#:r\ndesc:A stream of hot lava.\n";
  for (const path of ["lib/gamedata/terrain.txt", "lib/gamedata/curse.txt", "lib/gamedata/ego_item.txt", "lib/gamedata/flavor.txt"]) {
    test(`${path} is skipped as mechanics`, () => expect(extractFile(path, terrain).skipped.map((s) => s.reason)).toEqual([MECHANICS]));
  }
  test("monster.txt is not", () => expect(titles("lib/gamedata/monster.txt", terrain)).toEqual(["granite wall", "lava"]));
});

describe("PO sets and pages of prose (the PO-heavy corpus project)", () => {
  const cases: [string, string | null][] = [
    ["po/scenarios/de/tutorial.po", "de"],
    ["po/scenarios/ca@valencia/The_Unknown.po", "ca@valencia"],
    ["po/uh/zu.po", "zu"],
    ["po/uh/pt_BR.po", "pt-BR"],
    ["po/game_fr.po", "fr"],
    ["content/scenarios/tutorial_id.yaml", "id"],
    ["content/po/readme.po", null],
  ];
  for (const [path, lang] of cases) test(`${path} → ${lang}`, () => expect(languageOfPath(path)).toBe(lang));

  test("47 catalogues do not outvote the English scenarios: PO languages say nothing of the source", () => {
    const langs = ["af", "de", "fr", "id", "pl", "zu"];
    const paths = [...langs.flatMap((l) => [`po/uh/${l}.po`, `po/scenarios/${l}/tutorial.po`]), "content/scenarios/tutorial_en.yaml", "content/scenarios/tutorial_id.yaml"];
    const plan = planScan(paths);
    expect(plan.sourceLanguage).toBe("en");
    expect(plan.translationOf("content/scenarios/tutorial_id.yaml")).toEqual({ language: "id" });
    // No English catalogue (that is the .pot): the first one stands in, the others are its variants.
    expect(plan.translationOf("po/uh/af.po")).toBeNull();
    expect(plan.translationOf("po/uh/de.po")).toEqual({ language: "de" });
    expect(plan.variantsOf("po/uh/af.po").map((v) => v.language)).toEqual(["de", "fr", "id", "pl", "zu"]);
  });

  test("a PO catalogue's consecutive paragraphs are one passage titled by the heading entry before them", () => {
    const po = [
      'msgid ""', 'msgstr ""', '"Language: af\\n"', "",
      'msgid "20th November 1740"', 'msgstr ""', "",
      'msgid "After four days the storm finally fades and we can take a rest, but our food is low."', 'msgstr ""', "",
      'msgid "One of my jacks saw some birds hunting for fish, so land cannot be far from here."', 'msgstr ""', "",
      'msgid "22nd November 1740"', 'msgstr ""', "",
      'msgid "The port is built and a new hope arises, though we still lack building material."', 'msgstr ""', "",
    ].join("\n");
    const s = extractFile("po/scenarios/af/The_Unknown.po", po).sections;
    expect(s.map((x) => x.title)).toEqual(["20th November 1740", "22nd November 1740"]);
    expect(s[0].text).toBe("20th November 1740\n\nAfter four days the storm finally fades and we can take a rest, but our food is low.\n\nOne of my jacks saw some birds hunting for fish, so land cannot be far from here.");
  });

  test("a YAML page of paragraphs with a [Headline, …] pair is one section titled by it", () => {
    const yaml = [
      "logbook:",
      "- - [Headline, '20th November 1740']",
      "  - [Image, content/gui/images/hr.png]",
      "  - After four days the storm finally fades and we can take a rest.",
      "  - One of my jacks saw some birds hunting for fish, so land can't be far.",
      "- - [Headline, '22nd November 1740']",
      "  - The port is built and a new hope arises for all of us.",
      "  - We need to secure our basic needs to keep us alive this winter.",
    ].join("\n");
    const s = extractFile("content/scenarios/The_Unknown_en.yaml", yaml).sections;
    expect(s.map((x) => [x.title, x.text.split("\n\n").length])).toEqual([["20th November 1740", 2], ["22nd November 1740", 2]]);
  });
});

describe("stat templates inside a numbered string table", () => {
  test("a spell effect's Duration/Chance/Magnitude row is counted as mechanics, not joined into the passage", () => {
    const csv = [
      "Key,English",
      '1,"The Dark Brotherhood is a very mysterious organization, often hired as assassins by the more pragmatic rulers."',
      '2,"Invisibility (Normal) Duration: %bdr + %adr per %cld level(s) Chance: %bch + %ach per %clc level(s) Magnitude: %1bm - %2bm"',
      '3,"Not much is known about the Cabal of the Mages Guild. It is supposed that their power comes from summoning."',
    ].join("\n");
    const r = extractFile("Text/Internal_RSC.csv", csv);
    expect(r.sections).toHaveLength(1);
    expect(r.sections[0].text).not.toContain("Duration");
    expect(r.sections[0].text).toContain("Cabal of the Mages Guild");
    expect(r.skipped.map((s) => `${s.section} | ${s.reason}`)).toEqual([`1 entry | ${SKIP.statText}`]);
  });
});
