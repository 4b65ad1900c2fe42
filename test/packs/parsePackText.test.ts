import { describe, expect, test } from "bun:test";
import { parsePackText } from "../../src/packs/importPack.ts";
import { jsonErrorOffset } from "../../src/packs/jsonErrorOffset.ts";
import { apiErrorOf } from "./helpers.ts";

describe("parsePackText", () => {
  test("YAML by extension, JSON by extension, either by content otherwise", () => {
    expect(parsePackText("project: { name: A }\n", "a.yaml")).toEqual({ project: { name: "A" } });
    expect(parsePackText("project:\n  name: A\n", "a.yml")).toEqual({ project: { name: "A" } });
    expect(parsePackText('{"project": {"name": "A"}}', "a.json")).toEqual({ project: { name: "A" } });
    expect(parsePackText('\uFEFF  {"a": 1}', "stdin")).toEqual({ a: 1 });
    expect(parsePackText("a: 1", "pack.txt")).toEqual({ a: 1 });
  });

  test("YAML 1.2: yes/no and dates stay strings", () => {
    expect(parsePackText("a: yes\nb: 2024-01-01\nc: on\n", "a.yaml")).toEqual({ a: "yes", b: "2024-01-01", c: "on" });
  });

  test("every YAML syntax error with its line", async () => {
    const err = await apiErrorOf(() => parsePackText("a: 1\nb: [1, 2\nc: x\nd: 'open\n", "bad.yaml"));
    expect(err.error).toBe("Invalid lore pack");
    expect(err.details.length).toBeGreaterThanOrEqual(1);
    expect(err.details[0]).toMatch(/^bad\.yaml:3: /);
  });

  test("a billion-laughs alias bomb is refused", async () => {
    const bomb = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
    for (let i = 0; i < 8; i++) bomb.push(`${"bcdefghi"[i]}: &${"bcdefghi"[i]} [${Array(10).fill(`*${"abcdefgh"[i]}`).join(", ")}]`);
    const err = await apiErrorOf(() => parsePackText(bomb.join("\n"), "bomb.yaml"));
    expect(err.details).toEqual([expect.stringMatching(/^bomb\.yaml: .*alias/i)]);
  });

  test("jsonErrorOffset finds where JSON breaks", () => {
    expect(jsonErrorOffset('{"a": [1, 2]}')).toBeNull();
    expect(jsonErrorOffset('{"a": [1, 2,]}')).toBe(12);
    expect(jsonErrorOffset('{"a": tru}')).toBe(6);
    expect(jsonErrorOffset('{"a": "x\\q"}')).toBe(9);
    expect(jsonErrorOffset('{"a": 1} x')).toBe(9);
    expect(jsonErrorOffset('{"a": "open')).toBe(11);
  });
});
