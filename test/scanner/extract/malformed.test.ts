import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ALLOWED_EXTENSIONS, extractFile } from "../../../src/scanner/extract/index.ts";

/** Broken input for every structured format: exactly one Skipped "Parse error: …" for the file, no sections. */
const MALFORMED: [path: string, content: string][] = [
  ["data/broken.json", '{ "npcs": [ { "name": "Garrick", "description": "unterminated } ]'],
  ["data/broken.yaml", "npcs:\n  - name: Garrick\n   description: bad indent\n  - : : ["],
  ["data/broken.yml", 'key: "unterminated string\nother: 1'],
  ["data/broken.toml", '[quest]\ntitle = "The Missing Caravan\nreward = '],
  ["data/broken.csv", 'name,description\nGarrick,"Cheerful innkeeper who never closes his quote\n'],
  ["data/broken.xml", "<codex><entry name='a'><description>text</entry></codex>"],
  ["Res/broken.resx", "<root><data name='x'><value>unclosed</data></root>"],
  ["loc/broken.xliff", "<xliff><file><trans-unit id='1'><source>Hello</target></trans-unit></file></xliff>"],
  ["loc/broken.po", 'msgid "Hello"\nmsgstr "Bonjour"\nthis is not PO at all\n'],
  ["loc/Broken.strings", '"greeting" = "Hello, traveller" \n"missing" "equals";'],
  ["Assets/Broken.asset", "this is not unity yaml\nm_Name: nothing"],
  ["Assets/Broken.prefab", "\u0000\u0001\u0002UnityFS binary-serialized"],
  ["godot/broken.tres", '[gd_resource type="Resource" format=3]\n\n[resource]\ndescription = "never closed\n'],
  ["godot/broken.tscn", "not a godot scene = at all\njust words"],
  ["dialogue/broken.yarn", "Garrick: a line outside any node\n===\n"],
  ["story/broken.twee", "Just prose with no passage header at all."],
  ["story/broken.tw", ""],
  ["timelines/broken.dtl", '{ "events": [ { "text": "unterminated'],
];

describe("malformed input never throws and is reported", () => {
  for (const [path, content] of MALFORMED) {
    test(path, () => {
      const result = extractFile(path, content);
      expect(result.sections).toEqual([]);
      expect(result.skipped).toHaveLength(1);
      expect(result.skipped[0].sourceFile).toBe(path);
      expect(result.skipped[0].section).toBe(path.split("/").pop()!);
      expect(result.skipped[0].reason).toMatch(/^(Parse error: .+|Empty|Binary or unreadable content)$/);
    });
  }

  test("parse errors say what went wrong", () => {
    expect(extractFile("a.csv", 'a,b\n"x').skipped[0].reason).toBe("Parse error: unterminated quoted field starting at offset 4");
    expect(extractFile("a.po", 'msgstr "x"').skipped[0].reason).toBe("Parse error: msgstr without msgid at line 1");
    expect(extractFile("a.xml", "<a><b></a>").skipped[0].reason).toStartWith("Parse error: Expected closing tag 'b'");
    expect(extractFile("a.asset", "m_Name: x").skipped[0].reason).toStartWith("Parse error: not a Unity text-serialized file");
  });

  test("a broken Unity document is skipped alone; the other documents still extract", () => {
    const asset = [
      "%YAML 1.1",
      "%TAG !u! tag:unity3d.com,2011:",
      "--- !u!114 &1",
      "MonoBehaviour:",
      "  m_Name: Broken",
      "  description: [the flow sequence is never closed, so this document cannot parse",
      "--- !u!114 &2",
      "MonoBehaviour:",
      "  m_Name: Mira",
      "  description: A wandering herbalist who knows every path through the marsh.",
    ].join("\n");
    const r = extractFile("Assets/Npcs.asset", asset);
    expect(r.sections.map((s) => s.title)).toEqual(["Mira"]);
    expect(r.skipped).toHaveLength(1);
    expect(r.skipped[0].section).toBe("document &1");
    expect(r.skipped[0].reason).toStartWith("Parse error: ");
  });

  test("truncated and garbled versions of every fixture never throw", () => {
    const dir = join(import.meta.dir, "fixtures");
    for (const name of readdirSync(dir)) {
      const content = readFileSync(join(dir, name), "utf8");
      const variants = [
        content.slice(0, Math.floor(content.length / 2)),
        content.slice(Math.floor(content.length / 3)),
        content.replace(/[\n"'<>\[\]{}:=]/g, (c, i: number) => (i % 3 === 0 ? "" : c)),
      ];
      for (const ext of ALLOWED_EXTENSIONS) {
        for (const v of variants) {
          const r = extractFile(`x/${name}${ext}`, v);
          expect(Array.isArray(r.sections) && Array.isArray(r.skipped)).toBe(true);
        }
      }
    }
  });
});

describe("skip rules", () => {
  const reasons = (path: string, content: string) => extractFile(path, content).skipped.map((s) => [s.section, s.reason]);

  test("unsupported extension, empty file, binary content", () => {
    expect(reasons("art/logo.png", "PNG")).toEqual([["logo.png", "Unsupported file type"]]);
    expect(reasons("notes/empty.md", "  \n\n ")).toEqual([["empty.md", "Empty"]]);
    expect(reasons("notes/blob.txt", "\u0000\u0001\u0002\u0003binary")).toEqual([["blob.txt", "Binary or unreadable content"]]);
    expect(reasons("notes/mojibake.txt", "\ufffd".repeat(200))).toEqual([["mojibake.txt", "Binary or unreadable content"]]);
  });

  test("license headers and auto-generated files are boilerplate", () => {
    expect(reasons("LICENSE.md", "# License\n\nPermission is hereby granted, free of charge, to any person obtaining a copy of this software.")).toEqual([
      ["License", "Boilerplate (license header)"],
    ]);
    expect(reasons("Gen.cs", '// <auto-generated>\n//   This code was generated by a tool.\n// </auto-generated>\nclass A { string s = "A long string that would otherwise be prose for the lore scanner."; }')).toEqual([
      ["Gen.cs", "Boilerplate (auto-generated)"],
    ]);
  });

  test("GUID / file ID lists, numeric tables, code-only text", () => {
    const guids = "## Ids\n\n" + Array.from({ length: 6 }, (_, i) => `3f2504e0-4f89-11d3-9a0c-0305e82c330${i}`).join("\n");
    expect(reasons("ids.md", guids)).toEqual([["Ids", "Identifiers only (GUIDs / file IDs)"]]);
    const table = "## Stats\n\n| lvl | xp | hp |\n|---|---|---|\n" + Array.from({ length: 20 }, (_, i) => `| ${i} | ${i * 100} | ${i * 7} |`).join("\n");
    expect(reasons("stats.md", table)).toEqual([["Stats", "Numeric table (no prose)"]]);
    const code = "## Snippet\n\nif (player.gold > 10) { shop.open(); } else { door.lock(); } while (x < y) { x = x + 1; }";
    expect(reasons("code.md", code)).toEqual([["Snippet", "Code only (no prose)"]]);
  });

  // No fixed letter minimum. A titled short section is kept; one without words is listed;
  // fine-grained UI words are counted in one line; short unnamed entries are gathered into one list.
  test("too short: no words listed for document sections, UI words counted in one line for fine-grained entries", () => {
    expect(extractFile("short.md", "# Mill\n\nIt burned.\n\n# Well\n\n—").sections.map((s) => [s.title, s.text])).toEqual([["Mill", "It burned."]]);
    expect(reasons("short.md", "# Mill\n\nIt burned.\n\n# Well\n\n—")).toEqual([["Well", "Too short (no words)"]]);
    expect(reasons("ui.strings", '"a" = "OK";\n"b" = "Cancel";\n"c" = "Quit game";')).toEqual([["3 short entries", "Short UI text or label (not lore)"]]);
    const names = extractFile("places.strings", '"a" = "Thornhaven";\n"b" = "Old Mill";\n"c" = "Cancel";');
    expect(names.sections.map((s) => [s.title, s.text, s.kind])).toEqual([["places — short entries", "Thornhaven\nOld Mill", "name-list"]]);
  });

  test("a file with nothing in it that looks like prose says so", () => {
    expect(reasons("Assets/Empty.cs", "class A { int x = 1; }")).toEqual([["Empty.cs", "No prose found"]]);
  });

  test("more than 200 skipped sections are summarised per reason", () => {
    const md = Array.from({ length: 250 }, (_, i) => `# H${i}\n\n—`).join("\n\n");
    const skipped = extractFile("many.md", md).skipped;
    expect(skipped).toHaveLength(201);
    expect(skipped[200]).toEqual({ section: "50 more sections", reason: "Too short (no words)", sourceFile: "many.md" });
  });
});
