import { describe, expect, test } from "bun:test";
import { extractFile } from "../../../src/scanner/extract/index.ts";
import { isManualHeading, looksLikeDataTable } from "../../../src/scanner/extract/contentKind.ts";
import { joinHyphenated } from "../../../src/scanner/extract/formats/plainText.ts";
import { isStatText } from "../../../src/scanner/extract/techText.ts";
import { SKIP } from "../../../src/scanner/extract/text.ts";
import { SectionCollector } from "../../../src/scanner/extract/SectionCollector.ts";

/**
 * Scanner v3.1, tuned on the tuning and held-out corpora (BENCHMARKS "Scanner v3.1"): words a typesetter cut
 * across lines, sections under a manual's headings, Chinese rules text, records laid out one value per line.
 * Each rule has a case it must leave alone.
 */
const sections = (path: string, content: string) => extractFile(path, content).sections;
const reasons = (path: string, content: string) => extractFile(path, content).skipped.map((s) => s.reason);

describe("typeset text: words cut across lines are joined", () => {
  // As nroff lays out a guidebook: justified, hyphenated at the right margin.
  const guide = [
    "     Barbarians are warriors out of the hinterland, hardened  to  bat-",
    "     tle.   They  begin  their  quests with naught but uncommon strength, a",
    "     trusty hauberk, and a great two-handed sword.  Cavemen and Cavewomen",
    "     start  with  exceptional strength but, unfortunately, with neolithic",
    "     weapons.  Healers are wise in medicine and the apothecary  arts,  and",
    "     know  the  herbs  and potions of the land; their patrons are old gods",
    "     whose tem-",
    "     ples crumbled long ago, and whose names the valley folk once whis-",
    "     pered at every harvest before the wardens drove the priests away.",
  ].join("\n");

  test("a text with several cuts reads 'battle', and a search for the sentence finds it", () => {
    const text = sections("doc/Guidebook.txt", guide)[0].text.replace(/\s+/g, " ");
    expect(text).toContain("warriors out of the hinterland, hardened to battle. They begin");
    expect(text).toContain("whose temples crumbled");
    expect(text).toContain("once whispered at every harvest");
  });

  test("one or two line-end hyphens in hand-written prose are left as written", () => {
    const prose = "The smiths of Karn forge a blade they call the half-\nmoon, and sell it only to the river guard.";
    expect(joinHyphenated(prose)).toBe(prose);
    expect(sections("lore/karn.txt", prose)[0].text).toContain("half-\nmoon");
  });

  test("a dash between words or a capitalised continuation is not a cut", () => {
    const text = "one-\nTwo and three-\nFour, five-\nSix, seven-\n Eight";
    expect(joinHyphenated(text)).toBe(text);
  });
});

describe("a document section under a manual heading is meta", () => {
  test("options, credits and installation headings, numbered or not, as a wiki page's section too", () => {
    for (const h of ["9.6. Crash Report Options", "12.1. Special Thanks", "Installation", "Key bindings", "Eadras — Credits", "System requirements"]) {
      expect(isManualHeading(h)).toBe(true);
    }
  });

  test("a world's heading that merely holds such a word stays", () => {
    for (const h of ["The Thanks of the Queen", "Options of the Guild", "8.1. Achievements", "Controlling the Marsh", "The Building of the Wall", "Campaign Settings", "Ship Building"]) {
      expect(isManualHeading(h)).toBe(false);
    }
  });

  test("in a guidebook, the section under 'Special Thanks' is skipped as meta, the class description is kept", () => {
    const doc = [
      "3.1. The Classes",
      "",
      "Valkyries are hardy warrior women. Their upbringing in the harsh Northlands makes them strong, inures them to extremes of cold, and instills in them stealth and cunning.",
      "",
      "12.1. Special Thanks",
      "",
      "On behalf of the community, thank you very much once again to the people who host a public server and keep the wiki running for everyone.",
    ].join("\n");
    const out = extractFile("doc/Guidebook.txt", doc);
    expect(out.sections.map((s) => s.title)).toEqual(["3.1. The Classes"]);
    expect(out.skipped.map((s) => s.reason)).toContain(SKIP.toolText);
  });

  test("a Markdown page's 'Credits' section is meta, its lore section stays", () => {
    const md = "# The Drowned Abbey\n\nThe abbey sank in the spring flood of the ninth year; its bells still ring beneath the lake at dusk.\n\n## Credits\n\nWritten by the lore team, with art by the environment team and thanks to our playtesters for their notes.\n";
    const out = sections("wiki/drowned-abbey.md", md);
    expect(out.map((s) => s.title)).toEqual(["The Drowned Abbey"]);
  });
});

describe("Chinese rules text is game mechanics", () => {
  const briefing =
    "在立花希的「妄想颠覆」结界中，其受到的伤害最高不超过1点，但反弹伤害照常计算。利用千川老师的元素爆发能够开启封印结界。同时结界还能大幅降低敌方角色属性和提升我方角色技能伤害。在封印结界中将失去被动技能。";
  const story =
    "希菲尔抬头望向身后的钟楼，眼神中充满了羡慕。在约定好的时间，钟声总会如期而至。从很久很久以前开始，就一直如此。钟声每隔一段时间就会响起，听附近的人说已经有上百年的历史了。那一战之后，她受的伤害再也没有痊愈。";

  test("a battle's briefing, a rule term in every clause, is a rules text", () => {
    expect(isStatText(briefing)).toBe(true);
  });

  test("a story scene that names damage once is not", () => {
    expect(isStatText(story)).toBe(false);
  });

  test("in a Ren'Py label, the briefing is counted as mechanics and the scene is kept", () => {
    const rpy = `label inside_battle11:\n    "${briefing}"\n    return\n\nlabel balltower_event01:\n    "${story}"\n    return\n`;
    const out = extractFile("game/day217.rpy", rpy);
    expect(out.sections.map((s) => s.title)).toEqual(["balltower_event01"]);
    expect(out.skipped.map((s) => s.reason)).toContain(SKIP.statText);
  });
});

describe("records laid out one value per line are data", () => {
  const flats: string[] = [];
  const names = ["beautiful maiden", "dark warrior", "terrible child", "horned man", "clawed monstrosity", "green humanoid", "four-armed giant"];
  names.forEach((n, i) => flats.push(`175 ${i}`, n, "?2", "-2", "2", "410"));

  test("an engine's .cfg exported as text (numbers, a name, numbers) is skipped as a data table", () => {
    expect(looksLikeDataTable(flats.join("\n"))).toBe(true);
    expect(reasons("Resources/FLATS.CFG.txt", flats.join("\n"))).toEqual([SKIP.dataTable]);
  });

  test("a chronicle full of years and counts is still prose", () => {
    const chronicle = Array.from({ length: 30 }, (_, i) => `In ${1200 + i} the northern wardens counted ${i + 3} ships and 40 riders along the coast road.`).join("\n");
    expect(looksLikeDataTable(chronicle)).toBe(false);
    expect(sections("lore/chronicle.txt", chronicle).length).toBeGreaterThan(0);
  });
});

describe("a screen's text in a string table", () => {
  // Entries of a string table reach the collector keyed by their table key, as the Unity and .resx readers pass them.
  const table = (entries: Record<string, string>) => {
    const c = new SectionCollector("Assets/Localization/StringTables/Internal_Strings_en.asset");
    for (const [key, text] of Object.entries(entries)) c.add({ title: key, text, kind: "string-table-entry", keyed: true });
    return c.finish().sections.map((s) => s.text).join("\n");
  };

  test("a message template with named macros and a list of labels are UI; a sentence of lore is kept", () => {
    const texts = table({
      houseDeed: "You obtained the deed and now own a house in %town of %region.",
      repWithGroups: "Commoners\nMerchants\nScholars\nNobility\nUnderworld\nAll",
      fightersRanks: "Apprentice\nJourneyman\nSwordsman\nProtector\nDefender\nWarder",
      legendOfTheCrow: "The crow of Wayrest carried the last letter of the drowned king across the bay, and no bird has nested in the tower since.",
    });
    expect(texts).toContain("crow of Wayrest");
    expect(texts).not.toContain("%town");
    expect(texts).not.toContain("Journeyman");
    expect(texts).not.toContain("Nobility");
  });

  test("a percentage is not a macro, and two-word lines of a poem are not labels", () => {
    const texts = table({
      harvestNote: "In the year of the long frost the harvest fell by 40% and the river villages sent their grain north.",
      winterSong: "Cold stone\nhollow hill\nthe lanterns\nburn still, and the ferryman waits for the last of the pilgrims.",
    });
    expect(texts).toContain("harvest fell by 40%");
    expect(texts).toContain("ferryman waits");
  });
});

describe("short Chinese task and reward lines are notifications", () => {
  test("a label holding only a task/reward line is not a candidate; a line of dialogue is", () => {
    const rpy = 'label tea_help_job:\n    "茶馆任务！"\n    return\n\nlabel relation_active_reward:\n    "维系关系活动任务奖励。"\n    return\n\nlabel tea_talk:\n    "今天的茶很香，你要不要尝一尝？"\n    return\n';
    const titles = extractFile("game/interface/room/events.rpy", rpy).sections.map((s) => s.title);
    expect(titles).toEqual(["tea_talk"]);
  });
});

describe("a file of key bindings is configuration", () => {
  test("'Action, Key' lines are settings; a list of names written 'Last, First' is not", () => {
    const keys = "- Text database for dialog box keyboard shortcuts\n\nAccept,               A\nReject,               R\nCancel,               C\nYes,                  Y\nNo,                   N\nGameSetupPlay,        P\nExtAutomapResetView,  Backspace\nExtAutomapFocus,      Tab\n";
    expect(reasons("Text/DialogShortcuts.txt", keys)).toEqual([SKIP.config]);
    const names = "Marrow, Edwin the Elder\nAshgrove, Tamsin of the Reeds\nVeil, Oskar who kept the ferry\nHollin, Bree the weaver\nDunmere, Caspar the unlucky\nThorne, Idris of the watch\n";
    expect(reasons("lore/founders.txt", names)).not.toContain(SKIP.config);
  });
});
