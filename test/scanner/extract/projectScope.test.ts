import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { planScan } from "../../../src/scanner/extract/index.ts";
import { job, runWorker, scanFixture, submitAndUpload, type ScanFixture } from "../service/scanSupport.ts";

describe("a bin/ folder is judged by what it holds", () => {
  test("text and YAML data in bin/ beside C++ sources are scanned (OpenXcom keeps its rules and language files there)", () => {
    const paths = ["src/Engine/Game.cpp", "src/Engine/Game.h", "CMakeLists.txt", "bin/common/Language/en-US.yml", "bin/standard/xcom2/Ruleset/ufopaedia.yml", "bin/UFO/notes.txt"];
    const plan = planScan(paths);
    expect(plan.skipKind("bin/common/Language/en-US.yml")).toBeNull();
    expect(plan.skipKind("bin/standard/xcom2/Ruleset/ufopaedia.yml")).toBeNull();
    expect(plan.skipKind("bin/UFO/notes.txt")).toBeNull();
  });

  test("a bin/ laid out as a build (bin/Debug/net8.0/), or with a build tool's file, is build output, data copied there too", () => {
    const plan = planScan(["src/Program.cs", "bin/Debug/net8.0/data/items.json", "app/bin/Game.deps.json", "app/bin/lore.json", "x/bin/x64/Release/a.txt"]);
    expect(plan.skipKind("bin/Debug/net8.0/data/items.json")).toBe("compiled");
    expect(plan.skipKind("app/bin/lore.json")).toBe("compiled");
    expect(plan.skipKind("x/bin/x64/Release/a.txt")).toBe("compiled");
  });

  test("a bin/ with object files, libraries or executables is build output, data copied beside them too", () => {
    const paths = ["src/Program.cs", "bin/Debug/net8.0/Game.dll", "bin/Debug/net8.0/Game.pdb", "bin/Debug/net8.0/data/items.json", "tools/bin/run", "tools/bin/notes.txt"];
    const plan = planScan(paths);
    expect(plan.skipKind("bin/Debug/net8.0/data/items.json")).toBe("compiled");
    expect(plan.skipKind("bin/Debug/net8.0/Game.dll")).toBe("compiled");
    // An extensionless program (a script launcher) makes its bin/ a program folder.
    expect(plan.skipKind("tools/bin/notes.txt")).toBe("compiled");
  });

  test("each bin/ is judged alone, and other build folders keep their rule", () => {
    const paths = ["game/bin/rules.yml", "engine/bin/engine.exe", "engine/bin/config.yml", "obj/items.yml"];
    const plan = planScan(paths);
    expect(plan.skipKind("game/bin/rules.yml")).toBeNull();
    expect(plan.skipKind("engine/bin/config.yml")).toBe("compiled");
    expect(plan.skipKind("obj/items.yml")).toBe("compiled");
    // A data bin/ still answers to the other folder rules below it.
    expect(planScan(["bin/tests/case.yml", "bin/rules.yml"]).skipKind("bin/tests/case.yml")).toBe("tests");
  });
});

describe("a compiled story is a build of sources in its own project only", () => {
  const paths = [
    "twine-lane/index.html",
    "twine-lane/passages/01_start.twee",
    "greek-punishment/index.html",
    "greek-punishment/process/journal.md",
    "tweego-story/src/chapter.tw",
    "tweego-story/dist/index.html",
    "ink-game/Assets/Ink/story.ink",
    "ink-game/Assets/Ink/story.json",
    "other-game/Data/story.json",
  ];
  const plan = planScan(paths);

  test("a published Twine HTML with its Twee in the same folder tree, or published into dist/ beside it, is a copy", () => {
    expect(plan.hasTweeSourceFor("twine-lane/index.html")).toBe(true);
    expect(plan.hasTweeSourceFor("tweego-story/dist/index.html")).toBe(true);
  });

  test("a published Twine HTML whose project has no Twee is scanned, whatever other projects in the archive hold", () => {
    expect(plan.hasTweeSourceFor("greek-punishment/index.html")).toBe(false);
  });

  test("compiled Ink JSON likewise: a copy beside its .ink, the only text of a project without one", () => {
    expect(plan.hasInkSourceFor("ink-game/Assets/Ink/story.json")).toBe(true);
    expect(plan.hasInkSourceFor("other-game/Data/story.json")).toBe(false);
  });

  test("one project at the archive's root: its HTML and its sources in a subfolder", () => {
    const single = planScan(["index.html", "src/story.twee"]);
    expect(single.hasTweeSourceFor("index.html")).toBe(true);
    expect(planScan(["index.html"]).hasTweeSourceFor("index.html")).toBe(false);
  });
});

const STORY_HTML = (name: string, text: string) =>
  `<!DOCTYPE html><html><head><title>${name}</title></head><body><tw-storydata name="${name}" startnode="1" format="Harlowe" format-version="3.3.8">` +
  `<tw-passagedata pid="1" name="The Hill" tags="" position="100,100">${text}</tw-passagedata></tw-storydata></body></html>`;

describe("through the worker: two projects in one archive", () => {
  let f: ScanFixture;
  beforeAll(async () => {
    f = await scanFixture();
  });
  afterAll(() => f.close());

  test("the published story without Twee is scanned; the one beside its Twee is skipped as compiled; data in bin/ is read", async () => {
    const { jobId } = await submitAndUpload(f, [
      { path: "lane/index.html", data: STORY_HTML("Lane", "The farmhouse at the end of the lane has stood empty since the harvest fire.") },
      { path: "lane/passages/start.twee", data: ":: Start\nThe farmhouse at the end of the lane has stood empty since the harvest fire.\n" },
      { path: "punishment/index.html", data: STORY_HTML("Sisyphus", "Sisyphus pushes the boulder up the hill, and every evening it rolls back down to the valley.") },
      { path: "xcom/src/Game.cs", data: "class Game { static void Main() {} }\n" },
      { path: "xcom/bin/common/Language/en-US.yml", data: "en-US:\n  STR_SECTOID_UFOPEDIA: \"The Sectoids are a small grey species with large heads and powerful psionic minds.\"\n" },
    ]);
    await runWorker(f);
    const d = (await job(f, jobId)).body;
    expect(d.status).toBe("COMPLETED");
    const files = new Set(d.extractions.flatMap((e: any) => e.sourceFiles));
    expect(files.has("punishment/index.html")).toBe(true);
    expect(files.has("xcom/bin/common/Language/en-US.yml")).toBe(true);
    expect(files.has("lane/index.html")).toBe(false);
    expect(JSON.stringify(d.skippedContent ?? d.skipped)).toContain("lane/index.html");
  });
});

describe("the source language kept in several regions", () => {
  test("en-GB beside en-US is a variant of it, not a second copy of every entry", () => {
    const paths = ["bin/common/Language/en-US.yml", "bin/common/Language/en-GB.yml", "bin/common/Language/de.yml", "mods/x/Language/en-GB.yml"];
    const plan = planScan(paths);
    expect(plan.translationOf("bin/common/Language/en-US.yml")).toBeNull();
    expect(plan.translationOf("bin/common/Language/en-GB.yml")).toEqual({ language: "en-GB" });
    expect(plan.variantsOf("bin/common/Language/en-US.yml").map((v) => v.language).sort()).toEqual(["de", "en-GB"]);
    // A region alone is the source of its folder.
    expect(plan.translationOf("mods/x/Language/en-GB.yml")).toBeNull();
  });

  test("the configured source language chooses among the regions", () => {
    const plan = planScan(["loc/en-US.json", "loc/en-GB.json"], "language: en-GB");
    expect(plan.translationOf("loc/en-GB.json")).toBeNull();
    expect(plan.translationOf("loc/en-US.json")).toEqual({ language: "en-US" });
  });
});

describe("a project's top decides what is its own", () => {
  test("compiled Ink JSON in Resources/ of a Unity project whose .ink is in Ink/ is a copy", () => {
    const plan = planScan(["game/ProjectSettings/ProjectVersion.txt", "game/Assets/Ink/story.ink", "game/Assets/Resources/story.json", "other/README.md", "other/Data/story.json"]);
    expect(plan.hasInkSourceFor("game/Assets/Resources/story.json")).toBe(true);
    expect(plan.hasInkSourceFor("other/Data/story.json")).toBe(false);
  });

  test("projects wrapped in one folder: each readme marks a project, so one's Twee says nothing of the other's HTML", () => {
    const plan = planScan(["games/lane/README.md", "games/lane/src/a.twee", "games/lane/site/index.html", "games/greek/README.md", "games/greek/index.html"]);
    expect(plan.hasTweeSourceFor("games/lane/site/index.html")).toBe(true);
    expect(plan.hasTweeSourceFor("games/greek/index.html")).toBe(false);
  });
});
