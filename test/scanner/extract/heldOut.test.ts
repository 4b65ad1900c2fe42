import { describe, expect, test } from "bun:test";
import { extractFile, planScan } from "../../../src/scanner/extract/index.ts";
import { SKIP } from "../../../src/scanner/extract/text.ts";

/**
 * Scanner v3: the kinds of noise public game projects the scanner was never tuned on brought to review
 * (BENCHMARKS "Scanner v3"): translations in gettext and folder layouts, tutorials/samples/developer
 * docs and manuals, play logs, settings files, data tables, generated name lists, developer messages.
 * Each rule has a case it must not touch.
 */
const sections = (path: string, content: string) => extractFile(path, content).sections;
const reasons = (path: string, content: string) => extractFile(path, content).skipped.map((s) => s.reason);

describe("translations never reach review", () => {
  test("gettext's <locale>/LC_MESSAGES/<domain>.po: the source locale's catalogue is scanned, every other one is its variant", () => {
    const paths = ["mods/game/l18n/en_US/LC_MESSAGES/base.po", "mods/game/l18n/fr_FR/LC_MESSAGES/base.po", "mods/game/l18n/zh_CN/LC_MESSAGES/base.po", "mods/game/l18n/pt_BR/LC_MESSAGES/base.po", "mods/game/db/monster.json"];
    const plan = planScan(paths);
    expect(plan.sourceLanguage).toBe("en");
    expect(plan.translationOf(paths[0])).toBeNull();
    expect(plan.translationOf(paths[1])).toEqual({ language: "fr-FR" });
    expect(plan.translationOf(paths[2])).toEqual({ language: "zh-CN" });
    expect(plan.translationOf(paths[3])).toEqual({ language: "pt-BR" });
    expect(plan.variantsOf(paths[0]).map((v) => v.language).sort()).toEqual(["fr-FR", "pt-BR", "zh-CN"]);
    expect(plan.translationOf(paths[4])).toBeNull();
  });

  test("a catalogue whose msgids are keys gives the source locale's msgstr, titled by the key", () => {
    const po = 'msgid ""\nmsgstr "Language: en_US\\n"\n\nmsgid "urcine_description"\nmsgstr "A bristling boar of the eastern marsh, said to grow a tusk for every winter it survives."\n';
    const [s] = sections("l18n/en_US/LC_MESSAGES/base.po", po);
    expect(s.text).toContain("bristling boar");
    expect(s.title).toContain("urcine");
  });

  test("two-letter language folders beside the source files are variants of them", () => {
    const paths = ["dat/descript/spells.txt", "dat/descript/items.txt", "dat/descript/fi/spells.txt", "dat/descript/ko/items.txt", "dat/descript/de/spells.txt"];
    const plan = planScan(paths);
    expect(plan.translationOf("dat/descript/spells.txt")).toBeNull();
    expect(plan.translationOf("dat/descript/fi/spells.txt")).toEqual({ language: "fi" });
    expect(plan.translationOf("dat/descript/ko/items.txt")).toEqual({ language: "ko" });
    expect(plan.variantsOf("dat/descript/spells.txt").map((v) => v.language).sort()).toEqual(["de", "fi"]);
  });

  test("a folder slot holding two common language codes is a locale folder, rarer codes in it too (help/gd beside help/en, help/fr)", () => {
    const paths = ["data/help/en/coal.xml", "data/help/fr/coal.xml", "data/help/gd/coal.xml", "data/help/pt_BR/coal.xml", "data/help/en/mill.xml"];
    const plan = planScan(paths);
    expect(plan.sourceLanguage).toBe("en");
    expect(plan.translationOf("data/help/en/coal.xml")).toBeNull();
    expect(plan.translationOf("data/help/fr/coal.xml")).toEqual({ language: "fr" });
    expect(plan.translationOf("data/help/gd/coal.xml")).toEqual({ language: "gd" });
    expect(plan.translationOf("data/help/pt_BR/coal.xml")).toEqual({ language: "pt-BR" });
  });

  test("not languages: one two-letter folder alone, and names that merely end like a code", () => {
    const plan = planScan(["maps/ui/hud.json", "world/is/island.md", "data/msb-fire.xml", "data/msb-pol.xml", "story/chapter-ms.md"]);
    for (const p of ["maps/ui/hud.json", "world/is/island.md", "data/msb-fire.xml", "data/msb-pol.xml"]) expect(plan.translationOf(p)).toBeNull();
    // A real code at the end of a name still is one.
    expect(planScan(["text/strings.json", "text/strings_fr.json"]).translationOf("text/strings_fr.json")).toEqual({ language: "fr" });
  });

  test("a language's name or a locale with its region marks a folder wherever it sits", () => {
    const plan = planScan(["game/script.rpy", "game/french/script.rpy", "content/de_DE/quests.yaml", "content/quests.yaml"]);
    expect(plan.translationOf("game/french/script.rpy")).toEqual({ language: "fr" });
    expect(plan.translationOf("content/de_DE/quests.yaml")).toEqual({ language: "de-DE" });
    expect(plan.translationOf("game/script.rpy")).toBeNull();
  });

  test("regions count with their language for the majority: en_US and en_GB outvote one fr", () => {
    const plan = planScan(["loc/en_US/a.json", "loc/en_GB/a.json", "loc/fr_FR/a.json"]);
    expect(plan.sourceLanguage).toBe("en");
    // One region of the source language is the source (en-US), the other its variant (projectScope.test.ts).
    expect(plan.translationOf("loc/en_US/a.json")).toBeNull();
    expect(plan.translationOf("loc/en_GB/a.json")).toEqual({ language: "en-GB" });
    expect(plan.translationOf("loc/fr_FR/a.json")).toEqual({ language: "fr-FR" });
  });
});

describe("tutorials, samples, developer docs and manuals are meta", () => {
  const cases: [string, string | null][] = [
    ["project/tutorial/game/script.rpy", "samples"],
    ["Samples/Intro/Dialogue.yarn", "samples"],
    ["addons-free/examples/quest.json", "samples"],
    ["FeatureTour/tour.dtl", "samples"],
    ["docs/develop/levels.md", "samples"],
    ["Snippets/threading.ink", "samples"],
    ["data/help/en/coalmine.xml", "samples"],
    ["Quests/__DEMO01.txt", "samples"],
    ["game/tutorial_director.rpy", "samples"],
    ["doc/fixes3-6-0.txt", "changelog"],
    ["title/credits.txt", "docs"],
    ["sound/wav/attributions.txt", "licence"],
    ["data/gui/minimap.xml", "ui"],
    // A world's own words that look alike: not skipped.
    ["wiki/example-of-valour.md", "samples"],
    ["lore/history.md", null],
    ["quests/the_demon_war.txt", null],
    ["story/exemplar.md", null],
  ];
  for (const [path, kind] of cases) {
    test(`${path} → ${kind ?? "scanned"}`, () => expect(planScan([path]).skipKind(path)).toBe(kind as never));
  }
});

test("the skip reason's own opt-in line scans the kind again", () => {
  for (const [path, line] of [["Samples/Intro/Dialogue.yarn", "include: samples"], ["data/gui/minimap.xml", "include: ui"], ["tutorial/script.rpy", "include: all"]]) {
    expect(planScan([path], line).skipKind(path)).toBeNull();
  }
});

describe("whole files that are not prose", () => {
  test("a play log (lines stamped with date and time, the story's lines between them) is skipped as a log", () => {
    const log = Array.from({ length: 12 }, (_, i) => `2025-11-11 13:02:${String(10 + i).padStart(2, "0")}\nPlayerJumpedLabel(start|True)\n\nTulip\nHello hello! Don't bee shy. We're going to get along buzzingly!\n`).join("\n");
    expect(reasons("game/gamelog.txt", log)).toEqual(["Skipped: log (runtime output, not lore)"]);
    expect(sections("game/gamelog.txt", log)).toHaveLength(0);
  });

  test("a chronicle dated by day is not a log", () => {
    const chronicle = Array.from({ length: 12 }, (_, i) => `1740-11-${String(10 + i).padStart(2, "0")}\nThe storm held the ship for another day; the crew prayed to the drowned saints of Wren.\n`).join("\n");
    expect(sections("lore/logbook.txt", chronicle).length).toBeGreaterThan(0);
  });

  test("a settings file in .txt clothes is skipped as code", () => {
    const cfg = "# Auto-pickup exceptions\n# Lines starting with # are comments\nae += <rotten\nae += <useless\nae += >scroll of\nautopickup = $?!/\"=\nshow_more = false\n[bot]\nmax_depth = 12\n";
    expect(reasons("settings/autopickup_exceptions.txt", cfg)).toEqual(["Skipped: code (configuration file)"]);
    expect(sections("settings/autopickup_exceptions.txt", cfg)).toHaveLength(0);
  });

  test("prose with a few 'name: value' lines is still prose", () => {
    const prose = "The Warden of Wren keeps the northern gate.\nName: Aldric\nHe has kept it for forty winters, and he has never once opened it after dark.\nThe village says he is waiting for his brother, who rode north and never came back.\n";
    expect(sections("lore/warden.txt", prose).length).toBeGreaterThan(0);
  });

  test("a table of game data (a .tsv written with commas) is skipped as data, a dialogue sheet is not", () => {
    const table = ["id,name,kind,cost,cooldown,icon,power,level,scale,desc", "guard,Focus,heal,,0,guard_img,60.0,10,1.75,Restores half of the lost energy.", "spt,Charge,heal,,0,spt_img,60.0,10,1.75,Restores energy to the party.", "psy,Field,attack,,2,psy_img,80.0,12,1.5,Deals wind damage to all foes."].join("\n");
    expect(reasons("battle/settings/skills.tsv", table)).toEqual(["Skipped: data (a table of game data)"]);
    expect(sections("battle/settings/skills.tsv", table)).toHaveLength(0);
    const dialogue = "speaker,line\nGarrick,The roads east of Wren are not safe after dark.\nMira,Then we leave at dawn, and we do not stop until the river.\nGarrick,You always say that, and we always stop.\n";
    expect(sections("dialogue/lines.csv", dialogue).length).toBeGreaterThan(0);
  });

  test("a long list of short entries is counted as data, not one giant candidate; a short list is still one candidate", () => {
    const names = (n: number) => JSON.stringify({ names: Array.from({ length: n }, (_, i) => `Ul${"abcdefghij"[i % 10]}rin ${i}`) });
    const big = extractFile("names/generated.json", names(400));
    expect(big.sections).toHaveLength(0);
    expect(big.skipped.some((s) => s.reason === SKIP.shortTable && s.section === "400 short entries")).toBe(true);
    const small = extractFile("names/few.json", names(20));
    expect(small.sections.map((s) => s.title)).toEqual(["few — short entries"]);
  });
});

describe("text about the tool", () => {
  const options =
    "autodescribe Automatically describe the terrain under cursor when asked to get a location on the map. The whatis_coord option controls whether the description includes map coordinates. Default is on. Persistent. Can be set with the `O' command or in the configuration file with OPTIONS=autodescribe.";
  const lore =
    "Asking around, you hear about a bauble, called the Amulet of Yendor by some, which, if you can find it, will bring you great wealth. One legend even mentioned that the one who finds the amulet will be granted immortality by the gods; a window of the old inn still shows it in stained glass.";

  test("an options section is dropped as meta; lore that names one window is kept", () => {
    const md = `# Options\n\n${options}\n\n# The Amulet\n\n${lore}\n`;
    const out = extractFile("guide/handbook.md", md);
    expect(out.sections.map((s) => s.title)).toEqual(["The Amulet"]);
    expect(out.skipped.some((s) => s.reason === SKIP.toolText)).toBe(true);
  });

  test("in a document that is mostly a manual, a lighter manual section goes too, the story stays", () => {
    const light = "You can throw just about anything via the `t' command. It will prompt for the item to throw, and the item flies until it hits something in the dungeon or falls to the floor of the room where you stand.";
    const md = ["# Story", lore, ...Array.from({ length: 6 }, (_, i) => `# Option ${i}\n\n${options}`), "# Throwing", light].join("\n\n");
    const titles = extractFile("guide/handbook.md", md).sections.map((s) => s.title);
    expect(titles).toEqual(["Story"]);
    // Without the manual around it, the light section is kept.
    expect(extractFile("guide/throwing.md", `# Throwing\n\n${light}\n\n# Story\n\n${lore}`).sections.map((s) => s.title)).toEqual(["Throwing", "Story"]);
  });

  test("a manual page (NAME … SYNOPSIS … DESCRIPTION) is meta", () => {
    const man = "MN(7) Miscellaneous Information Manual\n\nNAME\n    mn - text formatting macros for the news documentation\n\nSYNOPSIS\n    nroff -mn [ options ] file\n\nDESCRIPTION\n    This package of macro definitions provides a canned formatting package for the documentation of the game.";
    expect(sections("doc/mn.txt", man)).toHaveLength(0);
  });

  test("a speaker named in snake_case is not code: Chinese narration stays", () => {
    const rpy = 'label day01:\n' + Array.from({ length: 12 }, () => '    nvl_narrator "与喜欢的人重逢真的会是件快乐的事吗？口袋里也是特地带上了眼药水。"').join("\n") + "\n";
    expect(sections("game/day01.rpy", rpy).map((s) => s.title)).toEqual(["day01"]);
  });
});

describe("developer messages in code", () => {
  test("assertions, editor warnings and error strings with placeholders are dropped; a line of dialogue is kept", () => {
    const gd = [
      "extends Node",
      'const GREETING := "Welcome to the Wren market, traveller. Mind the gulls."',
      "func _ready():",
      '\tassert(!targets.is_empty(), "The target cursor needs a non-empty target array!")',
      '\tpush_error("Cannot update battler stat %s! Stat does not have base value!" % name)',
      "func _get_configuration_warnings() -> PackedStringArray:",
      '\treturn ["This popup must be a child of a Gamepiece node!"]',
      "func fail():",
      '\tvar msg = "Cannot update battler stat %s! Stat does not have base value!"',
    ].join("\n");
    const texts = sections("src/ui/cursor.gd", gd).map((s) => s.text);
    expect(texts).toEqual(["Welcome to the Wren market, traveller. Mind the gulls."]);
  });

  test("short texts holding printf placeholders are program messages", () => {
    const xml = '<Dialog><Paragraph name="statistic_text5">Population %d of which %d are not housed.</Paragraph><Paragraph name="intro_text">The river town of Wren was founded by salt traders who fled the burning coast.</Paragraph></Dialog>';
    expect(sections("data/dialogs/gamestats.xml", xml).map((s) => s.text)).toEqual(["The river town of Wren was founded by salt traders who fled the burning coast."]);
  });
});

describe("Ren'Py creator-defined statements", () => {
  test("an encyclopedia's article is a section titled by its title; a one-line rule entry is not", () => {
    const rpy = [
      "encyclopedia article wyh:",
      '    title "Manyaka"',
      '    subtitle "Head priestess"',
      '    images "images/wyh.png"',
      '    """Head of the Kanto shrine, once the closest friend of Shino and a student of Yamato.',
      "    When Shino vanished she left the head shrine for a quiet town far away.",
      '    """',
      "",
      "encyclopedia article liberate:",
      '    title "Liberate"',
      '    """Effect hit rate +20% for 2 turns, +10% crit."""',
      "",
      "label start:",
      '    "The snow fell all night."',
    ].join("\n");
    const out = sections("game/encyclopedia.rpy", rpy);
    expect(out.map((s) => s.title)).toEqual(["Manyaka", "start"]);
    expect(out[0].text).toContain("Head of the Kanto shrine");
    expect(out[0].text).toContain("quiet town far away");
  });
});
