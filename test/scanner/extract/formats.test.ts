import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ALLOWED_EXTENSIONS, classify, decodeText, extractFile } from "../../../src/scanner/extract/index.ts";

const fixture = (name: string) => readFileSync(join(import.meta.dir, "fixtures", name), "utf8");
/** No fixed letter minimum; short fine-grained entries that are UI words are counted in one line. */
const SHORT_UI = "Short UI text or label (not lore)";
/** Code yields only dialogue/description strings and data-class doc comments. */
const CODE = "Source code: only dialogue/description strings and data-class doc comments are scanned";

interface Case {
  /** relativePath given to extractFile (its extension picks the format). */
  path: string;
  /** fixture file name (defaults to the base name of path). */
  fixture?: string;
  sections: { title: string; kind: string; text: string }[];
  skipped: { section: string; reason: string }[];
}

/** One realistic sample per format: exact titles, kinds, texts and skips. */
const CASES: Case[] = [
  {
    path: "docs/lore.md",
    // A page with a front-matter title is one entity (a wiki page): one candidate up to ~4,000 characters.
    sections: [
      {
        title: "Thornhaven Chronicle",
        kind: "markdown-heading",
        text: "An account of the town as told by its oldest residents, gathered over many winters by the scribe.\n\nThornhaven\n\nThe Founding\n\nThornhaven was founded by river traders in the year of the long frost. Its first building was the Rusty Tankard, which still stands.\n\nNotes\nShort.\n\nAside\nThe mill burned twice.\nThe well is older than the town itself, the elders say.\nName, Role\nGarrick, Innkeeper",
      },
    ],
    skipped: [],
  },
  {
    path: "docs/notes.txt",
    sections: [
      {
        title: "The Old Mill",
        kind: "prose",
        text: "The mill on the river bend has been abandoned for thirty years, ever since the miller's family vanished one night.\n\nChildren dare each other to touch its door, and the brave ones swear they hear grinding stones at midnight.\n\nTiny",
      },
    ],
    skipped: [],
  },
  {
    path: "web/page.html",
    sections: [
      { title: "Bestiary", kind: "html-text", text: "The creatures of the marsh are many, and most of them are hungry & patient." },
      { title: "Marsh Wyrm", kind: "html-text", text: "A long, pale serpent that sleeps under the peat and wakes only when the bells of Thornhaven ring." },
      // No fixed minimum; a heading says what a short text is about.
      { title: "Bog Lantern", kind: "html-text", text: "Tiny lights." },
    ],
    skipped: [],
  },
  {
    path: "dialogue/tavern.ink",
    sections: [
      {
        title: "tavern",
        kind: "ink-knot",
        text: 'Garrick wipes the counter and looks up as you enter the Rusty Tankard.\n"Welcome, traveller! Sit by the fire, the stew is hot and the ale is cold."\nAsk about the road\nBuy an ale\nGarrick pours you a foaming mug. "That\'ll be two coppers."\nLeave',
      },
      {
        title: "tavern.road",
        kind: "ink-stitch",
        text: 'Garrick lowers his voice. "The north road hasn\'t been safe since the caravan vanished near Thornhaven."\nNobody talks about it. He shakes his head.',
      },
    ],
    skipped: [],
  },
  {
    path: "dialogue/garrick.yarn",
    sections: [
      {
        title: "Garrick_Greeting",
        kind: "yarn-node",
        text: "Garrick: Welcome to the Rusty Tankard!\nGarrick: You look like you've walked the north road. Dangerous these days.\nAsk about the caravan\nGarrick: Three wagons, gone without a trace near.\nLeave",
      },
      { title: "Caravan", kind: "yarn-node", text: "Garrick: Don't ask." }, // one candidate per node, however short
    ],
    skipped: [],
  },
  {
    path: "story/story.twee",
    sections: [
      {
        title: "Start",
        kind: "twee-passage",
        text: "You push open the door of the Rusty Tankard.\nThe fire crackles and Garrick waves you over. Talk to Garrick or Leave.",
      },
      { title: "Road", kind: "twee-passage", text: "The road is dark." }, // one candidate per passage
    ],
    skipped: [
      { section: "StoryTitle", reason: "Boilerplate (file metadata)" },
      { section: "StoryData", reason: "Boilerplate (file metadata)" },
      { section: "Script", reason: "Code only (no prose)" },
    ],
  },
  {
    path: "game/script.rpy",
    sections: [
      {
        title: "start",
        kind: "renpy-label",
        text: "The tavern is warm and smells of woodsmoke and spilled ale.\nGarrick: Welcome, traveller! Sit by the fire.\nAsk about the caravan\nGarrick: Gone. Three wagons, gone near the old mill.\nLeave",
      },
      { title: "short", kind: "renpy-label", text: "Mira: Hi." }, // one candidate per label
    ],
    skipped: [],
  },
  {
    path: "data/npcs.json",
    sections: [
      {
        title: "Garrick",
        kind: "json-object",
        text: "Cheerful innkeeper of the Rusty Tankard who loves gossip about Thornhaven.\n\nWelcome, traveller!\nThe north road is dangerous these days, mind the wolves.",
      },
      { title: "Mira", kind: "json-object", text: "Too short." }, // a named object's short description is kept
      { title: "intro", kind: "json-string", text: "The valley of Thornhaven lies between two rivers that never freeze, even in the deepest winter." },
    ],
    skipped: [],
  },
  {
    path: "data/items.yaml",
    sections: [
      {
        title: "Lantern of the Marsh",
        kind: "yaml-object",
        text: "Carried by the bog wardens, this lantern burns with a green flame that\nnever goes out, not even under water.",
      },
      { title: "Rusty Key", kind: "yaml-object", text: "Opens something." }, // short named item kept
    ],
    skipped: [],
  },
  {
    path: "data/quests.toml",
    sections: [{ title: "The Missing Caravan", kind: "toml-object", text: "Three wagons left Thornhaven for the capital and never arrived. Garrick wants to know why." }],
    skipped: [],
  },
  {
    path: "data/dialogue.csv",
    sections: [
      // One candidate per key group: a speaker's rows together.
      { title: "Garrick", kind: "csv-row", text: 'Welcome to the Rusty Tankard, friend. Mind the step, it\'s older than I am.\n\nAle, stew, a bed — "the usual"?\n\nx' },
      { title: "Mira", kind: "csv-row", text: "The caravan left at dawn,\nand nobody has seen it since. The wolves took it, they say." },
    ],
    skipped: [],
  },
  {
    path: "data/places.tsv",
    sections: [{ title: "Old Mill", kind: "csv-row", text: "Abandoned for thirty years, the mill on the river bend hides a secret cellar." }],
    skipped: [],
  },
  {
    path: "data/codex.xml",
    sections: [
      { title: "The Bell Tower", kind: "xml-element", text: "The bell tower of Thornhaven rings at midnight when nobody is there to pull the rope." },
      { title: "Marsh Wyrm", kind: "xml-element", text: "A pale serpent sleeping under the peat, waking when the bells ring." },
    ],
    skipped: [],
  },
  {
    path: "Assets/Data/Garrick.asset",
    sections: [
      {
        title: "Garrick the Innkeeper",
        kind: "unity-text",
        text: "Cheerful innkeeper of the Rusty Tankard in Thornhaven. Knows every rumour on the north road.\n\nWelcome, traveller!\nMind the step.",
      },
    ],
    skipped: [],
  },
  {
    path: "Assets/Prefabs/Tavern.prefab",
    sections: [{ title: "Sign", kind: "unity-text", text: "The Rusty Tankard: ale, stew and a warm bed since the founding of Thornhaven." }],
    skipped: [], // the "OK" label's document has no run of words, so it is never parsed
  },
  {
    path: "npcs/garrick.tres",
    sections: [
      {
        title: "Garrick",
        kind: "godot-text",
        text: "Cheerful innkeeper of the Rusty Tankard.\nHe knows every rumour on the north road.\n\nWelcome, traveller!\n\nMind the wolves on the north road, they have grown bold this winter.",
      },
    ],
    skipped: [],
  },
  {
    path: "scenes/tavern.tscn",
    sections: [{ title: "Sign", kind: "godot-text", text: "The Rusty Tankard: ale, stew and a warm bed since the founding of Thornhaven." }],
    // A Button's caption is a control's, counted as UI (not a short entry that might be a name).
    skipped: [{ section: "1 controls (buttons, fields, lists)", reason: "UI, settings or developer text (not lore)" }],
  },
  {
    path: "timelines/intro.dtl",
    sections: [
      {
        title: "intro",
        kind: "dialogic-timeline",
        text: "Garrick: Welcome to the Rusty Tankard, traveller! Sit by the fire.\nThe fire crackles while rain hammers the shutters.\nAsk about the caravan\nGarrick: Three wagons, gone without a trace near the old mill.\nLeave",
      },
      { title: "farewell", kind: "dialogic-timeline", text: "Garrick: Safe travels." }, // one candidate per timeline
    ],
    skipped: [],
  },
  {
    path: "scripts/npc.gd",
    sections: [
      // The doc comment of a Node script (not a data class) and the code lines are not lore.
      { title: "GREETING", kind: "code-string", text: "Welcome, traveller! The stew is hot and the ale is cold, sit anywhere you like." },
      { title: "lore", kind: "code-string", text: "The bell tower of Thornhaven rings\nat midnight when nobody is there." },
    ],
    skipped: [{ section: "2 comments and code strings", reason: CODE }],
  },
  {
    path: "Assets/Scripts/NpcBarks.cs",
    sections: [
      // Comments of a MonoBehaviour (not a data class), and the licence header with them, are not scanned.
      { title: "IntroBark", kind: "code-string", text: "Welcome to the Rusty Tankard, traveller! Mind the step, it is older than I am." },
      { title: "Warning", kind: "code-string", text: 'The north road isn\'t safe since the caravan vanished near the "old mill".' },
    ],
    skipped: [{ section: "3 comments and code strings", reason: CODE }],
  },
  {
    path: "locale/fr.po",
    sections: [
      { title: "garrick_greeting", kind: "po-entry", text: "Welcome to the Rusty Tankard, traveller. The stew is hot and the ale is cold." },
      { title: "npc.mira.bio", kind: "po-entry", text: "Mira is a wandering herbalist who knows every path through the marsh." },
    ],
    skipped: [
      { section: "PO header", reason: "Boilerplate (file metadata)" },
      { section: "1 short entry", reason: SHORT_UI },
    ],
  },
  {
    path: "en.lproj/Localizable.strings",
    sections: [
      { title: "tavern.greeting", kind: "strings-entry", text: "Welcome to the Rusty Tankard! Mind the step, it is older than I am." },
      { title: "quest_intro", kind: "strings-entry", text: "Three wagons left Thornhaven for the capital and never arrived." },
    ],
    skipped: [{ section: "1 short entry", reason: SHORT_UI }],
  },
  {
    path: "Resources/Strings.resx",
    sections: [{ title: "MiraBio", kind: "resx-entry", text: "Mira is a wandering herbalist who knows every path through the marsh." }],
    skipped: [
      { section: "Icon", reason: "Binary or unreadable content" },
      { section: "1 short entry", reason: SHORT_UI },
    ],
  },
  {
    path: "locale/game.xliff",
    sections: [{ title: "bell_tower_lore", kind: "xliff-unit", text: "The bell tower rings at midnight when nobody is there to pull the rope." }],
    skipped: [{ section: "1 short entry", reason: SHORT_UI }],
  },
  // The same readers behind the other extensions of each family.
  { path: "docs/lore.markdown", fixture: "lore.md", sections: [], skipped: [] },
  { path: "story/story.tw", fixture: "story.twee", sections: [], skipped: [] },
  { path: "data/items.yml", fixture: "items.yaml", sections: [], skipped: [] },
  { path: "Assets/Scenes/Tavern.unity", fixture: "Tavern.prefab", sections: [], skipped: [] },
  { path: "Assets/Timeline/Tavern.playable", fixture: "Tavern.prefab", sections: [], skipped: [] },
];

/** Extension variants expect exactly what their sibling extension gives. */
function expected(c: Case): Pick<Case, "sections" | "skipped"> {
  if (c.sections.length || c.skipped.length || !c.fixture) return c;
  const sibling = CASES.find((o) => o !== c && (o.fixture ?? o.path.split("/").pop()) === c.fixture && o.sections.length)!;
  return sibling;
}

describe("extractFile: one sample per format", () => {
  for (const c of CASES) {
    test(c.path, () => {
      const name = c.fixture ?? c.path.split("/").pop()!;
      const result = extractFile(c.path, fixture(name));
      const want = expected(c);
      expect(result.sections.map(({ title, kind, text }) => ({ title, kind, text }))).toEqual(want.sections);
      expect(result.skipped).toEqual(want.skipped.map((s) => ({ ...s, sourceFile: c.path })));
      for (const s of result.sections) expect(s.sourceFile).toBe(c.path);
    });
  }

  test("every allowed extension has a sample above", () => {
    const covered = new Set(CASES.map((c) => c.path.slice(c.path.lastIndexOf(".")).toLowerCase()));
    expect([...ALLOWED_EXTENSIONS].filter((e) => !covered.has(e))).toEqual([]);
  });
});

describe("extractFile: hints and titles", () => {
  test("Markdown front matter gives the title of the intro and tag/location hints to every section", () => {
    const { sections } = extractFile("docs/lore.md", fixture("lore.md"));
    for (const s of sections) expect(s.hints).toEqual({ tags: ["town-history"], location: "Thornhaven" });
  });

  test("Twee passage tags, Yarn tags: headers and JSON tags fields become tag hints", () => {
    expect(extractFile("s.twee", fixture("story.twee")).sections[0].hints).toEqual({ tags: ["tavern", "intro"] });
    expect(extractFile("g.yarn", fixture("garrick.yarn")).sections[0].hints).toEqual({ tags: ["tavern"] });
    expect(extractFile("n.json", fixture("npcs.json")).sections[0].hints).toEqual({ tags: ["tavern"] });
  });

  test("fallback titles are marked untitled; found titles are not", () => {
    // A data class's doc comment has no name of its own; the strings are titled by their constants.
    const gd = fixture("npc.gd").replace("extends Node", "extends Resource");
    const { sections } = extractFile("scripts/npc.gd", gd);
    expect(sections.map((s) => [s.title, s.titled])).toEqual([["npc #1", false], ["GREETING", undefined], ["lore", undefined]]);
  });

  test("a single untitled section is titled by the file name alone", () => {
    const text = "The river that runs through the valley has never frozen, not once in three hundred winters.";
    const { sections } = extractFile("lore/river-notes.txt", text);
    expect(sections).toEqual([{ title: "river-notes", text, sourceFile: "lore/river-notes.txt", kind: "prose", titled: false }]);
  });

  test("plain text longer than one section is split into numbered sections", () => {
    // 8 paragraphs of 869 characters; a section takes paragraphs up to about 4,000 characters.
    const para = "The caravan road winds through the hills past the old watchtower and the ruined chapel. ".repeat(10).trim();
    const content = Array.from({ length: 8 }, () => para).join("\n\n");
    const { sections } = extractFile("road.txt", content);
    expect(sections.map((s) => s.title)).toEqual(["road #1", "road #2"]);
    expect(sections[0].text).toBe(Array.from({ length: 4 }, () => para).join("\n\n"));
    expect(sections.map((s) => s.text).join("\n\n")).toBe(content);
  });

  test("Unity components take the GameObject's name; Godot nodes their name attribute", () => {
    expect(extractFile("a.prefab", fixture("Tavern.prefab")).sections[0].title).toBe("Sign");
    expect(extractFile("a.tscn", fixture("tavern.tscn")).sections[0].title).toBe("Sign");
  });
});

describe("format details", () => {
  test("Markdown: fenced code, images, HTML comments and link URLs are dropped; setext headings split", () => {
    const md = [
      "Intro Title",
      "===========",
      "The harbour of Saltmere is older than the kingdom ![map](map.png) and <!-- secret --> busier than [the capital](https://x.y).",
      "",
      "```",
      "const secret = 'not lore';",
      "```",
      "Sub",
      "---",
      "Ships from the southern isles bring spice, silk and stories of sea serpents.",
    ].join("\n");
    const { sections } = extractFile("harbour.md", md);
    expect(sections.map(({ title, text }) => ({ title, text }))).toEqual([
      { title: "Intro Title", text: "The harbour of Saltmere is older than the kingdom and busier than the capital." },
      { title: "Sub", text: "Ships from the southern isles bring spice, silk and stories of sea serpents." },
    ]);
  });

  test("HTML: script and style text never reaches a section", () => {
    const { sections } = extractFile("p.html", fixture("page.html"));
    expect(sections.some((s) => s.text.includes("script string") || s.text.includes("color"))).toBe(false);
  });

  test("CSV: quoted fields with commas, doubled quotes and newlines; no text-like header picks the wordiest column", () => {
    const csv = 'key,en,fr\ngreet,"Hello, traveller! The ""Rusty Tankard"" welcomes you,\nstranger.",Bonjour\nbye,Bye,Salut\n';
    const { sections, skipped } = extractFile("loc.csv", csv);
    expect(sections.map(({ title, text }) => ({ title, text }))).toEqual([
      { title: "greet", text: 'Hello, traveller! The "Rusty Tankard" welcomes you,\nstranger.' },
    ]);
    // "Bye" under a plain key is UI text, counted, not listed.
    expect(skipped).toEqual([{ section: "1 short entry", reason: SHORT_UI, sourceFile: "loc.csv" }]);
  });

  test("TSV: a stray quote is text, not an unterminated field", () => {
    const tsv = 'name\tdescription\nGarrick\t"Never trust a quiet tavern, says the innkeeper of the Rusty Tankard\n';
    expect(extractFile("npcs.tsv", tsv).sections.map((s) => s.text)).toEqual(['"Never trust a quiet tavern, says the innkeeper of the Rusty Tankard']);
  });

  test("CSV: a sheet of numbers is one skip", () => {
    const csv = "level,xp,gold\n" + Array.from({ length: 50 }, (_, i) => `${i},${i * 1000},${i * 37}`).join("\n");
    expect(extractFile("curve.csv", csv)).toEqual({ sections: [], skipped: [{ section: "curve.csv", reason: "Numeric table (no prose)", sourceFile: "curve.csv" }] });
  });

  test("Ren'Py: play/show statements are not speech; the string speaker form is", () => {
    const rpy = 'label tavern:\n    play music "audio/a long file name with many words.ogg"\n    "Old Man" "I remember when the bell tower still rang at dawn, every single day."\n';
    expect(extractFile("t.rpy", rpy).sections.map((s) => s.text)).toEqual(["Old Man: I remember when the bell tower still rang at dawn, every single day."]);
  });

  test("PO: multi-line msgid, plural forms and obsolete entries", () => {
    const po = [
      'msgid "A wolf howls somewhere beyond the walls of the sleeping town."',
      'msgid_plural "Wolves howl somewhere beyond the walls of the sleeping town."',
      'msgstr[0] "Un loup hurle."',
      'msgstr[1] "Des loups hurlent."',
      "",
      '#~ msgid "An obsolete line about the old king and his three daughters."',
      '#~ msgstr ""',
    ].join("\n");
    expect(extractFile("w.po", po).sections.map((s) => s.text)).toEqual(["A wolf howls somewhere beyond the walls of the sleeping town."]);
  });

  test("XLIFF 2.0 units with segments", () => {
    const x = `<?xml version="1.0"?><xliff version="2.0" xmlns="urn:oasis:names:tc:xliff:document:2.0" srcLang="en"><file id="f"><unit id="lore_1"><segment><source>Beyond the marsh lies the drowned city, whose bells still ring under the water.</source></segment></unit></file></xliff>`;
    expect(extractFile("l.xliff", x).sections.map(({ title, text }) => ({ title, text }))).toEqual([
      { title: "lore_1", text: "Beyond the marsh lies the drowned city, whose bells still ring under the water." },
    ]);
  });

  test("Dialogic 1 JSON timelines", () => {
    const j = JSON.stringify({ metadata: { name: "Tavern Intro" }, events: [{ event_id: "dialogic_001", character: "c1", text: "Welcome to the Rusty Tankard, friend, the finest ale in the valley." }] });
    expect(extractFile("t.dtl", j).sections.map(({ title, text }) => ({ title, text }))).toEqual([
      { title: "Tavern Intro", text: "Welcome to the Rusty Tankard, friend, the finest ale in the valley." },
    ]);
  });

  test("a .yaml exported by Unity is read as Unity YAML", () => {
    const { sections } = extractFile("export/Garrick.yaml", fixture("Garrick.asset"));
    expect(sections.map((s) => s.kind)).toEqual(["unity-text"]);
  });
});

describe("extensions and decoding", () => {
  test("exactly the 29 extensions of DESIGN.md, lower-case with dots", () => {
    expect([...ALLOWED_EXTENSIONS].sort()).toEqual(
      [
        ".txt", ".md", ".markdown", ".html", ".ink", ".yarn", ".tw", ".twee", ".rpy", ".json", ".csv", ".tsv", ".xml", ".yaml", ".yml",
        ".toml", ".asset", ".playable", ".prefab", ".unity", ".tres", ".tscn", ".dtl", ".gd", ".cs", ".po", ".strings", ".resx", ".xliff",
      ].sort(),
    );
  });

  test("extensions are matched case-insensitively", () => {
    expect(extractFile("Assets/GARRICK.ASSET", fixture("Garrick.asset")).sections).toHaveLength(1);
  });

  test("decodeText honours UTF-16 and UTF-8 byte-order marks; a BOM never reaches the extractors", () => {
    const text = '"intro" = "Three wagons left Thornhaven for the capital and never arrived.";';
    const le = new Uint8Array([0xff, 0xfe, ...new Uint8Array(new Uint16Array([...text].map((c) => c.charCodeAt(0))).buffer)]);
    expect(decodeText(le)).toBe(text);
    const md = decodeText(new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode("---\ntitle: Saltmere\n---\nThe harbour of Saltmere is older than the kingdom itself.")]));
    expect(extractFile("s.md", md).sections[0].title).toBe("Saltmere");
    expect(extractFile("s.md", "\ufeff---\ntitle: Saltmere\n---\nThe harbour of Saltmere is older than the kingdom itself.").sections[0].title).toBe("Saltmere");
  });
});

describe("Twee (SugarCube) markup: what the reader sees, not the code", () => {
  // Found on a real SugarCube story (bench corpus twine-ordson): macros holding `>`, property reads of variables,
  // line continuations and backquoted link text had left code in the candidates.
  const cases: [string, string, string][] = [
    ["a macro whose condition holds < and >=", "<<if $intoxication < 4 && $gold >= 3>>You drink the green brew.<</if>>", "You drink the green brew."],
    ["a print macro", "The guildmaster nods. <<= $player.name>>", "The guildmaster nods."],
    ["a variable's property read", "\"Hello $player.name, welcome back.\"", "\"Hello, welcome back.\""],
    ["an indexed variable", "The $enemies[_i].name has $enemies[_i].health health left.", "The has health left."],
    ["line continuations after macros", "You wait thirty minutes.\n<<incrementTime 0 30>>\\\n<<set $waited to true>>\\\nNobody comes.", "You wait thirty minutes.\nNobody comes."],
    ["backquoted link text", '[[`"Oh thank you so much! Here you go!"`|Thieves\' Guild 5]]', '"Oh thank you so much! Here you go!"'],
  ];
  test.each(cases)("%s", (_, source, text) => {
    const [s] = extractFile("story/guild.twee", `:: Guild\n${source}\n`).sections;
    expect(s.text).toBe(text);
  });

  test("numbered continuation passages of a scene are one review group", () => {
    const story = ":: Thieves' Guild\nA narrow door in the Gray District.\n\n:: Thieves' Guild 2\nThe bearded man counts your gold.\n\n:: Thieves' Guild 13\nYou are one of them now.\n\n:: Guild Hall\nThe hall is empty.\n";
    const groups = classify(extractFile("story/guild.twee", story).sections, { tags: [], locations: [] }).map((c) => c.review.group);
    expect(groups).toEqual(["scene:story/guild.twee#thieves-guild", "scene:story/guild.twee#thieves-guild", "scene:story/guild.twee#thieves-guild", "scene:story/guild.twee#guild-hall"]);
  });
});
