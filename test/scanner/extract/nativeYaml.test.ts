import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { parseNativeYaml } from "../../../src/scanner/extract/formats/nativeYaml.ts";
import { extractFile } from "../../../src/scanner/extract/index.ts";
import { SKIP } from "../../../src/scanner/extract/text.ts";

/** What the scanner read before the native parser: the `yaml` library's documents, or its first error. */
function viaYamlLibrary(text: string): { value: unknown } | { error: string } {
  try {
    const docs = parseAllDocuments(text, { uniqueKeys: false });
    const list = Array.isArray(docs) ? docs : [docs];
    const bad = list.find((d) => d.errors.length);
    if (bad) return { error: bad.errors[0].message };
    // No document at all (empty text, comments only) walks nothing, as null does.
    if (list.length === 0) return { value: null };
    return { value: list.length === 1 ? list[0].toJS({ maxAliasCount: 1000 }) : list.map((d) => d.toJS({ maxAliasCount: 1000 })) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

// Plain YAML, the kind game data is written in: the native parser must give the same tree.
const SAME = [
  "a: 1\na: 2\n", "a: yes\nb: no\nc: on\nd: off\ne: Yes\nf: TRUE\ng: True\n", "a: 0x1F\nb: 0o17\nc: 017\nd: 1_000\ne: +12\nf: -0\ng: 1e3\nh: .5\ni: 5.\n",
  "a: .inf\nb: -.Inf\nc: .nan\nd: .NaN\ne: ~\nf: null\ng: Null\nh: NULL\ni:\n", "a: 2001-12-14t21:59:43.10-05:00\nb: 2002-12-14\n",
  "1.0: a\n1: b\n0x10: c\ntrue: d\n.inf: g\n-0: h\n", "", "# only a comment\n", "a", "- a\n- b\n",
  "\"a\\x41\\u263A\\N\\_\\L\\t\\/b\": 1\nb: 'it''s'\n", "a: |\n  line1\n  line2\nb: >-\n  folded\n  text\n\n  para\nc: |+\n  keep\n\nd: x\n",
  "a: plain\n  continued\n  more\n", "a: \"multi\n  line\n\n  q\"\n", "a: [1, 2, {b: c}]\nd: {e: f, g: [h]}\n", "a:\n  - b: 1\n    c: 2\n  - d\n",
  "a: b # comment\nc: 'd # not'\n", "key with spaces: value\n\"quoted key\": v\n", "a: 12345678901234567890\nb: 9007199254740993\n",
  "a: 1.0\nb: 1.50\nc: 100.0e-2\n", "a:\tb\n", "a: 'x\n\n  y'\n", "x: {a: 1, a: 2}\n", "a: 0b101\nb: 0777\nc: 0xFF\nd: 1:20\ne: 190:20:30\n",
  "a: \"\\u00e9t\\u00e9\"\nb: é\n", "\uFEFFa: bom\n", "a: b\r\nc: d\r\n", "- - a\n  - b\n- c\n", "a: >\n  folded\n   more indented\n  back\n",
  "a: \"\\\n  b\"\n", "a: |2\n   two\n", "5: five\n3: three\n", "a:\n- 1\n- 2\n", "a: 1 # c\n# c2\nb: 2\n", "a: \"\"\nb: ''\n",
  "a: -.5\nb: +.inf\nc: 1e+3\nd: 1E3\ne: 0.\n", "en-US:\n  STR_A: \"Hello {0}\"\n  STR_B: Plain text, with comma\n  STR_C: \"Line one\\nLine two\"\n",
  "x: [a: 1, b]\n", "- [a, b]\n", "x: {a, b}\n", "x: [[1, 2], {a: b}]\n", "- {name: Garrick, text: hello}\n", "- [RES.HAPPINESS, 1]\n- [RES.GOLD, -1]\n",
  "x:\n  - [a,\n     b]\n", "x: { a: 1,\n  b: [2, 3] }\n",
  "npcs:\n  - name: Garrick\n    description: >\n      A gruff innkeeper who has run the Rusty Tankard for twenty years.\n    tags: [tavern, thornhaven]\n",
];

// Where the two differ or must not be trusted: left to the `yaml` library.
const LEFT_TO_YAML = [
  "null: e\n", "~: f\n", "x: { : a}\n", "[a,\n b]: c\n", "- ? a\n  : b\n", "a: null\nNull: 1\n", "[a, b]: c\n", "{a: 1}: c\n", "? a\n: b\n", "x: {[a]: b}\n", "%YAML 1.1\n---\na: yes\n", "---\na: 1\n---\nb: 2\n",
  "k: v\n...\n", "a: &x 1\nb: *x\n", "a: !!str 1\n", "a: !custom x\n", "base: &b {x: 1}\nc:\n  <<: *b\n",
];

// Broken YAML: whatever the native parser does with it, the scanner must report the `yaml` library's error.
const BROKEN = [
  "a: b: c\n", "a: -\nb: - x\n", "a: [b\n", "- a\nb: c\n", "a: 'unterminated\n", "a: \"\\xZZ\"\n", "a: 'single' trailing\n", "a: @x\n", "a: `x\n",
  "npcs:\n  - name: Garrick\n   description: bad indent\n  - : : [", 'key: "unterminated string\nother: 1', "a: b\n\tc: d\n", "a:\n  b: 1\n c: 2\n",
];

describe("YAML through Bun's native parser", () => {
  test.each(SAME)("the same tree as the yaml library: %j", (text) => {
    const native = parseNativeYaml(text);
    expect(native).toBeDefined();
    expect(native!.value).toEqual((viaYamlLibrary(text) as { value: unknown }).value);
  });

  test.each(LEFT_TO_YAML)("left to the yaml library: %j", (text) => {
    expect(parseNativeYaml(text)).toBeUndefined();
  });

  test.each(BROKEN)("broken YAML keeps the yaml library's error: %j", (text) => {
    expect(viaYamlLibrary(text)).toHaveProperty("error");
    expect(parseNativeYaml(text)).toBeUndefined();
    const skipped = extractFile("data/broken.yaml", text).skipped;
    expect(skipped.map((s) => s.reason)).toContain(SKIP.parse((viaYamlLibrary(text) as { error: string }).error));
  });

  test("an alias bomb never reaches the native parser (it would share, not refuse, the expansions)", () => {
    const lines = ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"];
    for (let i = 1; i < 9; i++) lines.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9).fill(`*${String.fromCharCode(96 + i)}`).join(", ")}]`);
    const bomb = lines.join("\n") + "\n";
    expect(parseNativeYaml(bomb)).toBeUndefined();
    expect(extractFile("data/bomb.yaml", bomb).skipped.length).toBeGreaterThan(0);
  });

  test("the fixture's candidates are the yaml library's", () => {
    const text = readFileSync(join(import.meta.dir, "fixtures", "items.yaml"), "utf8");
    const native = parseNativeYaml(text);
    expect(native).toBeDefined();
    expect(native!.value).toEqual((viaYamlLibrary(text) as { value: unknown }).value);
    expect(extractFile("data/items.yaml", text).sections.length).toBeGreaterThan(0);
  });
});
