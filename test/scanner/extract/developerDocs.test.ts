import { describe, expect, test } from "bun:test";
import { extractFile } from "../../../src/scanner/extract/index.ts";
import { inDocsFolder } from "../../../src/scanner/extract/formats/markdown.ts";
import { skipGroupOf, skipKindOfPath } from "../../../src/scanner/extract/scanPlan.ts";
import { SKIP } from "../../../src/scanner/extract/text.ts";

/**
 * Scanner v3.2 (BENCHMARKS "Scanner v3.2"): a game project's own developer docs — a page per system in `docs/`,
 * each a "Purpose", a "Flow" and its "Key components" — read as plain prose, one manual word short of the
 * tool-text rule, and reached review section by section. In a docs folder, a Markdown page that names code is
 * developer documentation as a whole; a lore page kept there is read as before.
 */
const extract = (path: string, content: string) => extractFile(path, content);

// As a libGDX RPG documents its entity systems: short plain sections, the code named in a few places.
const systemDoc = [
  "# SkillSystem",
  "",
  "## Purpose",
  "Manages character progression through modular skill trees.",
  "It handles experience gain, leveling up within specific trees, and unlocking skill nodes that apply stat modifiers.",
  "Level-up points are earned into a shared pool that can be spent across all trees.",
  "",
  "## Flow",
  "- **XP Gain**: Listens for `ExpGainEvent`. Finds the target skill tree in the entity's `Skill` component and adds XP.",
  "- **Level Up**: When a tree levels up, it updates the tree state and adds points to the shared pool.",
  "",
  "## Key components and events",
  "- Skill",
  "- SkillTreeState",
].join("\n");

// A page with nothing but class names in its list: no code span at all.
const bareDoc = ["# ControllerSystem", "", "## Purpose", "Turns the player's input into movement and attack intents for the player entity each frame.", "", "## Key components", "- PlayerController", "- MoveIntent"].join("\n");

const lorePage = [
  "# The Salt Clans",
  "",
  "## Origins",
  "The Salt Clans rose on the flats east of Karn after the sea withdrew, and their elders still count the years from the last tide.",
  "MacLeod the Younger led the first caravan across the glass road, trading brine for iron with the river guard.",
  "",
  "## Customs",
  "A clan's name is carved into a block of salt at every birth; the block is dissolved in the cistern when the child dies.",
].join("\n");

describe("developer docs in a project's docs folder are meta", () => {
  test("a system page that names code in backticks gives no candidate, and its skip is counted as developer docs", () => {
    const r = extract("road/docs/systems/SkillSystem.md", systemDoc);
    expect(r.sections).toHaveLength(0);
    const skip = r.skipped.find((s) => s.reason === SKIP.toolText);
    expect(skip?.section).toContain("developer docs");
  });

  test("a page that names classes without any code span is developer docs too", () => {
    expect(extract("road/docs/systems/ControllerSystem.md", bareDoc).sections).toHaveLength(0);
    expect(extract("game/Documentation/ControllerSystem.md", bareDoc).sections).toHaveLength(0);
  });

  test("a page with a code block in doc/ is developer docs", () => {
    const build = ["# Building", "", "Run the following from the project's root to build the city:", "", "```sh", "cmake -B build", "```", "", "## Packaging", "A release is cut from the main branch and signed by two maintainers."].join("\n");
    expect(extract("city/doc/RELEASE.md", ["# Release", "", "Use `git tag` then push.", "", build].join("\n")).sections).toHaveLength(0);
  });
});

describe("what the docs rule leaves alone", () => {
  test("a lore page kept in docs/ (no code, one proper name that looks like a class) is read section by section", () => {
    const titles = extract("game/docs/lore/salt-clans.md", lorePage).sections.map((s) => s.title);
    expect(titles).toEqual(["Origins", "Customs"]);
  });

  test("the same system page outside a docs folder is judged section by section, as before", () => {
    const r = extract("road/notes/SkillSystem.md", systemDoc);
    expect(r.sections.map((s) => s.title)).toContain("Purpose");
  });

  test("only a folder named docs, doc or documentation counts, at any depth; not a file so named", () => {
    expect(inDocsFolder("road/docs/systems/AiSystem.md")).toBe(true);
    expect(inDocsFolder("Doc/readme-world.md")).toBe(true);
    expect(inDocsFolder("game/documents/world.md")).toBe(false);
    expect(inDocsFolder("game/docs.md")).toBe(false);
    expect(inDocsFolder("lore/docs-of-the-realm/world.md")).toBe(false);
  });
});

describe("a mod's manifest is tool configuration", () => {
  // An engine's mods each carry one: name, version, author and a line on what the mod changes, for the mod loader.
  test("metadata.yml, mod_info.json and modinfo.xml are skipped as configuration, at any depth", () => {
    for (const p of ["openxcom/bin/standard/XcomUtil_Pistol_Auto_Shot/metadata.yml", "mods/Foo/metadata.json", "mod_info.json", "Mods/Bar/modinfo.xml", "mods/baz/mod-info.yaml"]) {
      // OpenXcom's bin/ is its data folder (judged from the whole manifest elsewhere).
      expect(skipKindOfPath(p, new Set(["openxcom/bin"]))).toBe("ci");
    }
  });

  test("files that merely hold the word are read: a world's meta-history, an item's info", () => {
    for (const p of ["lore/metadata-of-the-empire.md", "data/metadata_fields.yml", "items/info.json", "lore/modern-info.md"]) {
      expect(skipKindOfPath(p)).toBeNull();
    }
  });
});

describe("an installer's folder is packaging", () => {
  test("install/ and installer/ folders are skipped as configuration, and reported under the folder", () => {
    expect(skipKindOfPath("openxcom/install/win/Language/en-US.yml")).toBe("ci");
    expect(skipKindOfPath("game/installer/strings.json")).toBe("ci");
    expect(skipGroupOf("openxcom/install/win/Language/en-US.yml", "ci")).toBe("openxcom/install/");
  });

  test("a file or folder that only starts with the word is read", () => {
    expect(skipKindOfPath("lore/the-installer-of-kings.md")).toBeNull();
    expect(skipKindOfPath("world/installations/orbital-forge.md")).toBeNull();
  });
});
