import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/testApp.ts";
import { exportPack } from "../../src/packs/exportPack.ts";
import { importPath } from "../../src/packs/importPack.ts";
import { splitFrontMatter } from "../../src/packs/loreFolder.ts";
import { apiErrorOf, countRows, DEMO_FOLDER, DEMO_PACK, dumpDb, newCtx, statusOf } from "./helpers.ts";

const dirs: string[] = [];
function folder(files: Record<string, string>): string {
  const dir = tempDir("lorehold-folder-");
  dirs.push(dir);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(dir, rel, ".."), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("a folder of Markdown lore", () => {
  test("examples/markdown-lore imports into the Thornhaven project: titles, tags, locations, keys", async () => {
    const ctx = newCtx();
    const demo = await importPath(ctx, DEMO_PACK);
    const r = await importPath(ctx, DEMO_FOLDER, { projectId: demo.projectId });
    expect(Object.keys(r.ids.documents)).toEqual(["ferry-songs.md", "tankard/the-porter.md", "weather-lore.md"]);
    const docs = exportPack(ctx, demo.projectId).documents!;
    const byKey = (k: string) => docs.find((d) => d.key === k)!;
    // front matter title, tags, location (by key)
    expect(byKey("ferry-songs.md")).toMatchObject({ name: "Songs of the Wend Ferrymen", tags: ["history", "town-history"], location: "thornhaven" });
    expect(byKey("ferry-songs.md").content).toStartWith("# Songs of the Wend Ferrymen\n\nBefore the bridge");
    // a single tag as a string; the location by its name
    expect(byKey("tankard/the-porter.md")).toMatchObject({ name: "Wend Water Porter", tags: ["tavern"], location: "rusty-tankard" });
    // no front matter: the file name is the title
    expect(byKey("weather-lore.md")).toEqual({
      key: "weather-lore.md",
      name: "weather-lore",
      content: expect.stringMatching(/^River folk read the weather in the Wend itself\.\n\n.*old men at the Tankard say\.$/s),
    });
    for (const id of Object.values(r.ids.documents)) expect(statusOf(ctx, id)).toBe("PENDING");

    // again: the same documents, nothing written
    const dump = dumpDb(ctx);
    const again = await importPath(ctx, DEMO_FOLDER, { projectId: demo.projectId });
    expect(again.ids).toEqual(r.ids);
    expect(dumpDb(ctx)).toBe(dump);
  });

  test("without a project id the folder becomes a project named after it; .txt files and sub-folders count, others do not", async () => {
    const ctx = newCtx();
    const dir = folder({
      "notes.txt": "Plain text lore.",
      "deep/er/legend.markdown": "---\ntitle: The Legend\nkey: legend\ntags: [history]\n---\nOnce upon a time.\n",
      "image.png": "not lore",
      ".hidden/secret.md": "hidden",
      "readme.json": "{}",
    });
    const r = await importPath(ctx, dir);
    expect(Object.keys(r.ids.documents)).toEqual(["legend", "notes.txt"]);
    const pack = exportPack(ctx, r.projectId);
    expect(pack.project!.name).toBe(dir.split("/").pop()!);
    expect(pack.documents).toEqual([
      { key: "legend", name: "The Legend", tags: ["history"], content: "Once upon a time." },
      { key: "notes.txt", name: "notes", content: "Plain text lore." },
    ]);
    expect(countRows(ctx, r.projectId).documents).toBe(2);
  });

  test("problems name the file: front matter syntax (with its line), unknown fields, unknown tags and locations; nothing is written", async () => {
    const ctx = newCtx();
    const demo = await importPath(ctx, DEMO_PACK);
    const dir = folder({
      "a.md": "---\ntitle: A\ntags: [tavern, no-such-tag]\nlocation: Atlantis\n---\nText.",
      "b/broken.md": "---\ntitle: B\ntags: [unclosed\n---\nText.",
      "c.md": "---\ntitle: C\nauthor: me\n---\nText.",
      "d.md": "---\ntitle: \"\"\n---\nText.",
      "e.md": "---\ntitle: never closed\nText.",
      "f.md": "---\n- a list\n---\nText.",
    });
    const before = dumpDb(ctx);
    const err = await apiErrorOf(() => importPath(ctx, dir, { projectId: demo.projectId }));
    expect(err.status).toBe(400);
    expect(err.error).toBe("Invalid lore pack");
    expect(err.details).toEqual([
      // the YAML parser notices the unclosed list where the front matter ends
      expect.stringMatching(/^b\/broken\.md:4: Flow sequence/),
      "c.md: author: unknown front matter field (known: title, tags, location, key)",
      "e.md:1: front matter has no closing --- line",
      "f.md: front matter must be a mapping of title, tags, location, key",
      "a.md: tags[1]: unknown tag 'no-such-tag'",
      "a.md: location: unknown location 'Atlantis'",
      "d.md: title: must be a non-empty string",
    ]);
    expect(dumpDb(ctx)).toBe(before);
  });

  test("one lore file imports like a folder of one; other file types are refused", async () => {
    const ctx = newCtx();
    const dir = folder({ "Harbour Songs.md": "---\ntags: [history]\n---\nSing it low.", "pack.toml": "a = 1" });
    const r = await importPath(ctx, join(dir, "Harbour Songs.md"));
    const pack = exportPack(ctx, r.projectId);
    expect(pack.project!.name).toBe("Harbour Songs");
    expect(pack.documents).toEqual([{ key: "Harbour Songs.md", name: "Harbour Songs", tags: ["history"], content: "Sing it low." }]);
    const err = await apiErrorOf(() => importPath(ctx, join(dir, "pack.toml")));
    expect(err.details).toEqual([`${join(dir, "pack.toml")}: not a lore pack (.yaml, .yml, .json), a lore file (.md, .markdown, .txt) or a folder of lore files`]);
  });

  test("a missing path, and an empty folder", async () => {
    const ctx = newCtx();
    expect((await apiErrorOf(() => importPath(ctx, "/no/such/place"))).details).toEqual(["/no/such/place: no such file or folder"]);
    const empty = folder({ "x.png": "" });
    expect((await apiErrorOf(() => importPath(ctx, empty))).details).toEqual([`${empty}: no .md, .markdown, .txt files`]);
  });
});

describe("splitFrontMatter", () => {
  test("CRLF-free body, blank lines after the front matter dropped, '...' also closes", () => {
    expect(splitFrontMatter("---\ntitle: T\n...\n\n\nBody\n", "x.md")).toEqual({ frontMatter: { title: "T" }, body: "Body", problems: [] });
    expect(splitFrontMatter("No front matter\n---\nnot: yaml\n", "x.md")).toEqual({ frontMatter: {}, body: "No front matter\n---\nnot: yaml", problems: [] });
    expect(splitFrontMatter("---\n---\nEmpty front matter", "x.md")).toEqual({ frontMatter: {}, body: "Empty front matter", problems: [] });
  });
});
