import { describe, expect, test } from "bun:test";
import { classify, extractFile, planScan } from "../../../src/scanner/extract/index.ts";
import { COMPILED_INK } from "../../../src/scanner/extract/extractFile.ts";
import { languageOfPath, parseIncludes, skipKindOfPath } from "../../../src/scanner/extract/scanPlan.ts";
import { CODE_NOT_LORE } from "../../../src/scanner/extract/formats/sourceCode.ts";
import { MECHANICS } from "../../../src/scanner/extract/formats/records.ts";

const sections = (path: string, content: string, opts = {}) => extractFile(path, content, opts).sections.map(({ title, text, kind, reviewKind }) => ({ title, text, kind, reviewKind }));

describe("scanner v2: what a file is, by path", () => {
  const cases: [string, string | null][] = [
    ["addons/dialogic/Editor/MasterTree.gd", "engine"],
    ["Assets/Plugins/Ink/InkLibs/readme.txt", "engine"],
    [".github/workflows/test.yml", "ci"],
    ["game/.obsidian/app.json", "ci"],
    ["package.json", "ci"],
    ["src/twee-configs/chapel.twee-config.yaml", "ci"], // a Twee editor extension's macro documentation
    ["src/twee-configs/numberpool.twee-config.json", "ci"],
    ["CHANGELOG.md", "changelog"],
    ["wiki/log.md", "changelog"],
    ["LICENSE.md", "licence"],
    ["Fonts/OpenSans/License!.txt", "licence"],
    ["README.md", "docs"],
    ["CONTRIBUTING.md", "docs"],
    ["Tests/Runtime/DialogueRunnerTests.yarn", "tests"],
    ["Runtime/bin/YarnSpinner.xml", "compiled"],
    ["Runtime/DLLs/YarnSpinner.xml", "engine"],
    ["wiki/templates/template--deity.md", "meta"],
    ["solutions/Eadras_Worldbuilding_Audit.md", "meta"],
    ["wiki/index.md", "meta"],
    ["wiki/open-questions.md", "meta"],
    ["wiki/divine-containment-protocols.md", null],
    ["lib/gamedata/history.txt", null],
    ["wiki/great-betrayal.md", null],
    ["Assets/Ink/TheIntercept.ink", null],
  ];
  for (const [path, kind] of cases) test(`${path} → ${kind ?? "scanned"}`, () => expect(skipKindOfPath(path)).toBe(kind as never));

  test("include lines of userContext opt kinds back in; 'all' includes every kind and translations", () => {
    expect([...parseIncludes("Our game.\ninclude: engine, licences\ninclude: docs")].sort()).toEqual(["docs", "engine", "licence"]);
    expect(parseIncludes("include: all").has("translations")).toBe(true);
    const plan = planScan(["addons/x/a.gd", "README.md"], "include: engine");
    expect(plan.skipKind("addons/x/a.gd")).toBeNull();
    expect(plan.skipKind("README.md")).toBe("docs");
  });
});

describe("scanner v2: translations are variants", () => {
  test.each([
    ["game/tl/french/script.rpy", "fr"],
    ["locale/de/LC_MESSAGES/game.po", "de"],
    ["translations/po/translation_demo_es.po", "es"],
    ["Assets/Localization/StringTables/Internal_Items_en.asset", "en"],
    ["game/script.rpy", null],
    ["data/items.json", null],
  ])("%s is in %s", (path, lang) => expect(languageOfPath(path)).toBe(lang as never));

  test("Ren'Py tl/ files are translations of the script beside them; the source gets them as variants", () => {
    const paths = ["q/game/script.rpy", "q/game/tl/french/script.rpy", "q/game/tl/japanese/script.rpy", "q/game/options.rpy"];
    const plan = planScan(paths);
    expect(plan.sourceLanguage).toBe("en");
    expect(plan.translationOf("q/game/tl/french/script.rpy")).toEqual({ language: "fr" });
    expect(plan.translationOf("q/game/script.rpy")).toBeNull();
    expect(plan.variantsOf("q/game/script.rpy")).toEqual([
      { language: "fr", sourceFile: "q/game/tl/french/script.rpy" },
      { language: "ja", sourceFile: "q/game/tl/japanese/script.rpy" },
    ]);
    expect(plan.variantsOf("q/game/options.rpy")).toEqual([]);
  });

  test("a PO set in two languages: the source language is configurable, the other file is its variant", () => {
    const plan = planScan(["po/game_de.po", "po/game_fr.po"], "language: de");
    expect(plan.sourceLanguage).toBe("de");
    expect(plan.translationOf("po/game_fr.po")).toEqual({ language: "fr" });
    expect(plan.variantsOf("po/game_de.po")).toEqual([{ language: "fr", sourceFile: "po/game_fr.po" }]);
  });

  test("translations with no source-language file: the first stands in for the source, the others are its variants", () => {
    const plan = planScan(["locale/fr.po", "locale/de.po", "story.md"]);
    expect(plan.sourceLanguage).toBe("en");
    expect(plan.translationOf("locale/fr.po")).toBeNull();
    expect(plan.translationOf("locale/de.po")).toEqual({ language: "de" });
    expect(plan.variantsOf("locale/fr.po")).toEqual([{ language: "de", sourceFile: "locale/de.po" }]);
  });
});

describe("game mechanics records and API doc comments are not lore", () => {
  test("a record file of effects is skipped unless included; a monster file is scanned", () => {
    const recs = "name:FIRE_BOLT\ndesc:fires a bolt of fire\n\nname:COLD_BOLT\ndesc:fires a bolt of frost\n";
    expect(extractFile("lib/gamedata/activation.txt", recs).skipped.map((s) => s.reason)).toEqual([MECHANICS]);
    expect(extractFile("lib/gamedata/activation.txt", recs, { includeMechanics: true }).sections.map((s) => s.title)).toEqual(["FIRE_BOLT", "COLD_BOLT"]);
    expect(planScan([], "include: mechanics").includeMechanics).toBe(true);
  });

  test("doc comments of a ScriptableObject are kept unless they describe the code", () => {
    const cs = "[CreateAssetMenu]\npublic class Relic : ScriptableObject {\n  /// The Ember Blade was forged in the abbey ruins by the last smith of Thornhaven.\n  public string a;\n  /// Gets a value indicating whether the relic glows.\n  public bool b;\n}\n";
    expect(extractFile("Assets/Relic.cs", cs).sections.map((s) => s.text)).toEqual(["The Ember Blade was forged in the abbey ruins by the last smith of Thornhaven."]);
    const xmlDoc = "public class Relic : ScriptableObject {\n  /// <summary>\n  /// Gets a relic given its code.\n  /// </summary>\n  public int A;\n}\n";
    expect(extractFile("Assets/Relic.cs", xmlDoc).sections).toEqual([]);
  });
});

describe("keyed tables: one candidate per key group, titled by the name", () => {
  const cases: [string, string, [string, string][]][] = [
    [
      "items.po",
      'msgid "item.ember_blade.name"\nmsgstr "Ember Blade"\n\nmsgid "item.ember_blade.desc"\nmsgstr "Forged in the abbey."\n\nmsgid "item.rope.name"\nmsgstr "Old Rope"\n',
      [["Ember Blade", "Forged in the abbey."], ["items — short entries", "Old Rope"]],
    ],
    [
      "items.csv",
      "key,text\nsword_name,Ember Blade\nsword_desc,Forged in the abbey.\nmenu_quit,Quit game\n",
      [["Ember Blade", "Forged in the abbey."]],
    ],
    [
      "Localizable.strings",
      '"npc.mira.name" = "Mira";\n"npc.mira.bio" = "A herbalist of the marsh.";\n"npc.mira.greeting" = "Mind the bog!";\n',
      [["Mira", "A herbalist of the marsh.\n\nMind the bog!"]],
    ],
    ["catalog.json", JSON.stringify({ sword_name: "Ember Blade", sword_description: "Forged in the abbey, it glows." }), [["Ember Blade", "Forged in the abbey, it glows."]]],
  ];
  for (const [path, content, want] of cases) test(path, () => expect(sections(path, content).map((s) => [s.title, s.text])).toEqual(want));
});

describe("scanner v2: one candidate per record, titled by its name, stat lines dropped", () => {
  const MONSTERS = [
    "# monster.txt",
    "name:Grip, Farmer Maggot's Dog",
    "base:canine",
    "speed:120",
    "blow:BITE:HURT:1d4",
    "desc:A rather vicious dog belonging to Farmer Maggot.  It thinks you are",
    "desc: stealing mushrooms.",
    "",
    "name:Fang, Farmer Maggot's Dog",
    "speed:120",
    "desc:A rather vicious dog belonging to Farmer Maggot.  It thinks you are",
    "desc: stealing mushrooms.",
    "",
    "name:brown mold",
    "depth:1",
    "desc:A strange brown growth on the dungeon floor.",
    "",
  ].join("\n");

  test("record file: each record a section, short descriptions kept, kind from the file", () => {
    expect(sections("lib/gamedata/monster.txt", MONSTERS)).toEqual([
      { title: "Grip, Farmer Maggot's Dog", text: "A rather vicious dog belonging to Farmer Maggot. It thinks you are stealing mushrooms.", kind: "record", reviewKind: "character" },
      { title: "Fang, Farmer Maggot's Dog", text: "A rather vicious dog belonging to Farmer Maggot. It thinks you are stealing mushrooms.", kind: "record", reviewKind: "character" },
      { title: "brown mold", text: "A strange brown growth on the dungeon floor.", kind: "record", reviewKind: "character" },
    ]);
  });

  test("two records with the same description stay two candidates (different names)", () => {
    const c = classify(extractFile("monster.txt", MONSTERS).sections, { tags: [], locations: [] });
    expect(c.map((x) => x.title)).toEqual(["Grip, Farmer Maggot's Dog", "Fang, Farmer Maggot's Dog", "brown mold"]);
    expect(c[0].review.kind).toBe("character");
    expect(c[0].review.group).toBe("character:grip-farmer-maggot-s-dog");
  });

  test("artifact names 'of X' take their base object; name-only records are listed, not candidates", () => {
    const art = "name:of Galadriel\nbase-object:light:Phial\nlevel:5\ndesc:A small crystal phial containing the light of Eärendil's Star.\n\nname:of Elendil\nbase-object:light:Star\ndesc:The shining Star of the North.\n";
    expect(sections("artifact.txt", art).map((s) => s.title)).toEqual(["Phial of Galadriel", "Star of Elendil"]);
    const factions = "#17\n\t\ttype: 2\n\t\tname: Oblivion\n\t\trep: 0\n#1\n\t\ttype: 0\n\t\tname: Clavicus Vile\n\t\trep: 0\n";
    expect(sections("FACTION.TXT", factions)).toEqual([{ title: "FACTION — short entries", text: "Oblivion\nClavicus Vile", kind: "name-list", reviewKind: undefined }]);
  });

  test("a book file is titled by its Title header, markup stripped; a quest by its DisplayName, text codes stripped", () => {
    const book = "Title: A Tale of Kieran\nAuthor: Vegepythicus\nPrice: 312\nContent:\n\n[/font=2]\n[/center]Tales of Kieran\n\n Kieran was on the road from Wren to Fairtree.[/center]\n";
    expect(sections("BOK00001-LOC.txt", book)).toEqual([{ title: "A Tale of Kieran", text: "Tales of Kieran\n\nKieran was on the road from Wren to Fairtree.", kind: "prose", reviewKind: undefined }]);
    const quest = "Quest: $CUREVAM\nDisplayName: Cure for Vampirism\n-- Message panels\nQRC:\n\nQuestorOffer:  [1000]\nError -- 1000 called\n\nQuestComplete:  [1004]\n<ce>   As the bloodfather dies, you feel the curse\n<ce>   of vampirism lift from your soul.\n\nQBN:\nItem _cure_ item 1\n";
    expect(sections("$CUREVAM.txt", quest)).toEqual([{ title: "Cure for Vampirism", text: "As the bloodfather dies, you feel the curse of vampirism lift from your soul.", kind: "record", reviewKind: "event" }]);
  });
});

describe("scanner v2: compiled outputs and code", () => {
  const INK_JSON = '{"inkVersion":21,"root":[["^I am not a machine.","\\n",["done",{"#n":"g-0"}],null]],"listDefs":{}}';

  test("compiled Ink JSON beside its source is skipped; without the source it is read", () => {
    expect(extractFile("Assets/Ink/TheIntercept.json", INK_JSON, { hasInkSource: true }).skipped).toEqual([
      { section: "TheIntercept.json", reason: COMPILED_INK, sourceFile: "Assets/Ink/TheIntercept.json" },
    ]);
    expect(extractFile("Assets/Ink/TheIntercept.json", INK_JSON, { hasInkSource: false }).skipped.map((s) => s.reason)).not.toContain(COMPILED_INK);
  });

  test("C#: dialogue strings kept and titled by their field, comments and UI/log strings dropped", () => {
    const cs = [
      "// Handles the barks of the smith. Called every frame.",
      "public class SmithBarks : MonoBehaviour {",
      '  public string greetingLine = "Mind the forge, stranger; the iron bites.";',
      '  string label = "OK";',
      '  void Fail() { Debug.LogError("Unable to find the forge anvil component in scene."); }',
      '  public string Intro = "Welcome to Thornhaven, where the river meets the road.";',
      "}",
    ].join("\n");
    const r = extractFile("Assets/Scripts/SmithBarks.cs", cs);
    expect(r.sections.map((s) => [s.title, s.text])).toEqual([
      ["greetingLine", "Mind the forge, stranger; the iron bites."],
      ["Intro", "Welcome to Thornhaven, where the river meets the road."],
    ]);
    expect(r.skipped.find((s) => s.reason === CODE_NOT_LORE)?.section).toBe("1 comments and code strings");
  });
});

describe("scanner v2: markup, wiki pages, short lore, tags as proper nouns", () => {
  test("engine markup is stripped: BBCode, <ce>, Unity rich text, Twine macros, wiki links", () => {
    const md = "---\ntitle: Veyr'Keth\ntags: [settlement]\n---\n\n**Summary**: The [[velrathi|Velrathi]] capital, [b]geode-encased[/b] <color=#fff>and</color> (set: $seen to true)[old].\n";
    expect(sections("wiki/veyr-keth.md", md)).toEqual([{ title: "Veyr'Keth", text: "Summary: The Velrathi capital, geode-encased and old].", kind: "prose", reviewKind: undefined }]);
  });

  test("a wiki page with a title stays one candidate across its headings until ~4,000 characters", () => {
    const md = `---\ntitle: Black Hand\ntags: [organization]\n---\n# Black Hand\n\nA shadow conspiracy.\n\n## Methods\n\nBlackmail and espionage.\n\n## Members\n\nNobody knows.\n`;
    const s = extractFile("wiki/black-hand.md", md).sections;
    expect(s.map((x) => x.title)).toEqual(["Black Hand"]);
    expect(s[0].text.replace(/\n+/g, " | ")).toBe("A shadow conspiracy. | Methods | Blackmail and espionage. | Members | Nobody knows.");
    const [c] = classify(s, { tags: [], locations: [] });
    expect(c.review.kind).toBe("faction");
  });

  test("short untitled entries become one list per file, not one candidate each", () => {
    const csv = "Key,Value\n0,Ruby\n1,Emerald\n2,The Mehrunes Razor\n3,ok\n";
    expect(sections("Internal_Items.csv", csv)).toEqual([{ title: "Internal_Items — short entries", text: "Ruby\nEmerald\nThe Mehrunes Razor", kind: "name-list", reviewKind: undefined }]);
  });

  test("tags and locations match as proper nouns, with reasons; common words and sentence starts do not", () => {
    const vocab = { tags: ["ring", "Black Hand"], locations: ["Over", "Wren"] };
    const text = "Over the hill a ring of acidic fog drifts toward Wren. The One Ring was lost near Wren; the Black Hand wants it back.";
    const [c] = classify([{ title: "The Fog", text, sourceFile: "a.md", kind: "markdown-heading" }], vocab);
    expect(c.tags).toEqual(["ring", "Black Hand"]);
    expect(c.location).toBe("Wren");
    expect(c.review.reasons).toEqual({ ring: "'ring' in the text ×1", "Black Hand": "'Black Hand' in the text ×1", location: "'Wren' in the text ×2" });
  });

  test("speakers are attributed from 'Name: line' dialogue and the kind is dialogue", () => {
    const yarn = "title: Smithy\n---\nGarrick: Mind the forge.\nMara: I always do.\nGarrick: Good.\n===\n";
    const [c] = classify(extractFile("dialogue/smithy.yarn", yarn).sections, { tags: [], locations: [] });
    expect(c.review.speakers).toEqual(["Garrick", "Mara"]);
    expect(c.review.kind).toBe("dialogue");
    expect(c.review.group).toBe("scene:dialogue/smithy.yarn#smithy");
  });

  test("confidence scores lore over length: a named creature's line beats a long changelog-like paragraph", () => {
    const lore = { title: "Bullroarer the Hobbit", text: "He is a sturdy hobbit who is renowned for his unusual strength and vigour.", sourceFile: "monster.txt", kind: "record", reviewKind: "character" as const };
    const log = { title: "notes #3", titled: false, text: "fixed the build script, bumped deps, updated the ci config, refactored the importer and the tests, ".repeat(8), sourceFile: "notes.md", kind: "prose" };
    const [a, b] = classify([lore, log], { tags: [], locations: [] });
    expect(a.confidence).toBeGreaterThan(b.confidence + 0.3);
  });
});

describe("tolerant parsers", () => {
  const cases: [string, string, string, [string, string][]][] = [
    [
      "JSON with comments and trailing commas",
      "data/npcs.json",
      '// NPCs of the valley\n{\n  "npcs": [\n    /* the innkeeper */\n    { "name": "Garrick", "description": "Innkeeper of the Rusty Tankard, // not a comment here", },\n  ],\n}\n',
      [["Garrick", "Innkeeper of the Rusty Tankard, // not a comment here"]],
    ],
    [
      "YAML with a duplicate key (the last wins)",
      "data/items.yaml",
      "items:\n  - name: Ember Blade\n    description: An old draft.\n    description: Forged in the abbey ruins, it glows near danger.\n",
      [["Ember Blade", "Forged in the abbey ruins, it glows near danger."]],
    ],
    [
      "a Twine 2 archive read as passages (tags as hints, macros stripped)",
      "stories/archive.html",
      '<html><body><tw-storydata name="Over" format="Harlowe"><style>tw-story{}</style><script>var x = 1;</script>' +
        '<tw-passagedata pid="1" name="Gate" tags="city" position="0,0">The gate of Over is shut at dusk. (link: &quot;Knock&quot;)[(goto: &quot;Watch&quot;)]</tw-passagedata>' +
        '<tw-passagedata pid="2" name="Watch" tags="">The watchman squints: [[Who goes there?|Gate]]</tw-passagedata></tw-storydata></body></html>',
      [
        ["Gate", "The gate of Over is shut at dusk."],
        ["Watch", "The watchman squints: Who goes there?"],
      ],
    ],
  ];
  for (const [name, path, content, want] of cases) test(name, () => expect(sections(path, content).map((s) => [s.title, s.text])).toEqual(want));

  test("Twine passages carry their tags as hints", () => {
    const html = '<tw-storydata name="S"><tw-passagedata pid="1" name="Gate" tags="city gate">The gate is shut at dusk.</tw-passagedata></tw-storydata>';
    expect(extractFile("s.html", html).sections[0].hints).toEqual({ tags: ["city", "gate"] });
  });

  test("a large JSON with no run of words is skipped unparsed; one with prose is read", () => {
    const numbers = JSON.stringify({ vertices: Array.from({ length: 300_000 }, (_, i) => i * 0.5) });
    expect(numbers.length).toBeGreaterThan(1024 * 1024);
    expect(extractFile("mesh.json", numbers)).toEqual({ sections: [], skipped: [{ section: "mesh.json", reason: "No prose found", sourceFile: "mesh.json" }] });
    const lore = JSON.stringify({ vertices: Array.from({ length: 300_000 }, (_, i) => i), lore: "The river that runs through the valley has never frozen." });
    expect(extractFile("mesh.json", lore).sections.map((s) => s.text)).toEqual(["The river that runs through the valley has never frozen."]);
  });
});

describe("large YAML is parsed a slice of top-level entries at a time", () => {
  test("a 1.5 MB list gives the same sections as a whole parse would", () => {
    const item = (i: number) => `- name: Relic ${i}\n  description: >-\n    Relic ${i} was found in the abbey ruins\n    and glows when danger is near.\n`;
    const big = Array.from({ length: 14_000 }, (_, i) => item(i)).join("");
    expect(big.length).toBeGreaterThan(1024 * 1024);
    const s = extractFile("relics.yaml", big).sections;
    expect(s).toHaveLength(14_000);
    expect(s[13_999]).toMatchObject({ title: "Relic 13999", text: "Relic 13999 was found in the abbey ruins and glows when danger is near." });
  });
});
