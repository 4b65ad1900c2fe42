import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseSuites } from "../../src/loretests/loadSuites.ts";
import { saysTerm } from "../../src/loretests/expectations.ts";
import { importPack, parsePackText } from "../../src/packs/importPack.ts";
import { resolveCases } from "../../src/loretests/resolveCases.ts";
import { ApiError } from "../../src/core/errors.ts";
import { newCtx } from "../packs/helpers.ts";
import { EXAMPLES } from "./helpers.ts";

const problems = (files: { file: string; text: string }[]) => {
  try {
    parseSuites(files);
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).status).toBe(400);
    expect((e as ApiError).error).toBe("Invalid lore tests");
    return (e as ApiError).extra.details as string[];
  }
  throw new Error("no problem found");
};

describe("bad test files: every problem with its file and path, nothing accepted", () => {
  test("unknown fields (with a guess when one is close), wrong types, empty turns, out-of-range numbers, seed with greedy — across two files at once", () => {
    const a = `tests:
  - name: one
    mind: garrick
    runs: 0
    passRate: 1.5
    seed: 3
    greedy: true
    turns:
      - say: hi
        expect: { mention: [ale], maxSentences: two }
  - name: two
    mind: garrick
    turns: []
`;
    const b = `tests:\n  - { name: "", mind: garrick, turns: [{ say: hi }], colour: red }\n`;
    expect(problems([{ file: "a.test.yaml", text: a }, { file: "b.test.yaml", text: b }])).toEqual([
      "a.test.yaml: tests[0].turns[0].expect.maxSentences: must be an integer from 1 to 100",
      "a.test.yaml: tests[0].turns[0].expect.mention: unknown field (did you mean 'mentions'?)",
      "a.test.yaml: tests[0].runs: must be an integer from 1 to 50",
      "a.test.yaml: tests[0].passRate: must be a number from 0 to 1",
      "a.test.yaml: tests[1].turns: at least 1 item",
      "a.test.yaml: tests[0]: seed and greedy: true exclude each other (greedy sampling uses no seed)",
      "b.test.yaml: tests[0].name: must be a non-empty string",
      "b.test.yaml: tests[0].colour: unknown field (known: name, mind, state, memories, history, trust, turns, runs, passRate, seed, greedy)",
    ]);
  });

  test("YAML and JSON syntax errors name the file and line", () => {
    expect(problems([{ file: "s.test.yaml", text: "tests:\n  - name: [unclosed\n" }])[0]).toMatch(/^s\.test\.yaml:\d+: /);
    expect(problems([{ file: "s.test.json", text: '{"tests": [' }])[0]).toMatch(/^s\.test\.json: /);
    expect(problems([{ file: "s.test.yaml", text: "- just a list" }])).toEqual(["s.test.yaml: must be a mapping with tests: (a list of cases)"]);
    expect(problems([{ file: "s.test.yaml", text: "project: x\n" }])).toEqual(["s.test.yaml: tests: required"]);
  });

  test("a pack's tests section is read from the pack; a pack without one says so", () => {
    const pack = `project: { name: P }\nminds: []\ntests:\n  - { name: t, mind: m, turns: [{ say: hi, expect: { never: [x] } }] }\n`;
    expect(parseSuites([{ file: "p.yaml", text: pack }]).map((c) => [c.source, c.case.name])).toEqual([["p.yaml#0", "t"]]);
    expect(problems([{ file: "p.yaml", text: "project: { name: P }\nminds: []\n" }])).toEqual(["p.yaml: tests: required (this pack has no tests section)"]);
    expect(problems([{ file: "p.yaml", text: "project: { name: P }\ntests:\n  - { name: t, mind: m, turns: [{ say: hi, expect: { nevr: [x] } }] }\n" }])).toEqual([
      "p.yaml: tests[0].turns[0].expect.nevr: unknown field (did you mean 'never'?)",
    ]);
  });

  test("a pack with a bad tests section is refused by import too (one schema), and a good one imports", () => {
    const ctx = newCtx();
    const bad = parsePackText("project: { name: P }\ntests:\n  - { name: t, mind: m, turns: [] }\n", "p.yaml");
    expect(() => importPack(ctx, bad)).toThrow("Invalid lore pack");
    try {
      importPack(ctx, bad);
    } catch (e) {
      expect((e as ApiError).extra.details).toEqual(["tests[0].turns: at least 1 item"]);
    }
    const good = parsePackText("project: { name: P }\ntests:\n  - { name: t, mind: m, turns: [{ say: hi }] }\n", "p.yaml");
    expect(importPack(ctx, good).projectId).toMatch(/^proj_/);
  });

  test("names that resolve to nothing in the project are problems: a mind, a document, a tag", () => {
    const ctx = newCtx();
    const { projectId } = importPack(ctx, parsePackText(readFileSync(join(EXAMPLES, "thornhaven.yaml"), "utf8"), "thornhaven.yaml"));
    const cases = parseSuites([
      {
        file: "r.test.yaml",
        text: `tests:
  - { name: a, mind: nobody, turns: [{ say: hi }] }
  - { name: b, mind: Garrick Thorne, turns: [{ say: hi, expect: { knowsFrom: [no-such-doc, The Rusty Tankard], noLeakOf: [smugglers, no-such-tag] } }] }
`,
      },
    ]);
    try {
      resolveCases(ctx, projectId, cases);
      throw new Error("resolved");
    } catch (e) {
      expect((e as ApiError).extra.details).toEqual([
        "r.test.yaml#0: mind: no Entity Mind 'nobody' in this project (a pack key, a name or an id)",
        "r.test.yaml#1: turns[0].expect.knowsFrom: no document 'no-such-doc' in this project",
        "r.test.yaml#1: turns[0].expect.noLeakOf: no document or tag 'no-such-tag' in this project",
      ]);
    }
  });

  test("the demo suite is valid and names only what the demo world has", () => {
    const ctx = newCtx();
    const { projectId } = importPack(ctx, parsePackText(readFileSync(join(EXAMPLES, "thornhaven.yaml"), "utf8"), "thornhaven.yaml"));
    for (const f of ["thornhaven.test.yaml", "thornhaven-replies.test.yaml"]) {
      const cases = resolveCases(ctx, projectId, parseSuites([{ file: f, text: readFileSync(join(EXAMPLES, f), "utf8") }]));
      expect(cases.length).toBeGreaterThan(3);
    }
  });
});

describe("mentions and never: case-insensitive, whole words", () => {
  test.each([
    ["The ALE is thin", "ale", true],
    ["a tale of woe", "ale", false],
    ["Wend  Water, friend", "wend water", true],
    ["wend water's the best", "Wend Water", true],
    ["the crypt's door", "crypt", true],
    ["encrypted", "crypt", false],
    ["Saint Wenna’s altar", "Wenna's", true],
    ["price: 40 crowns", "40", true],
    ["price: 400 crowns", "40", false],
    ["(a.b)", "a.b", true],
  ])("%p says %p: %p", (text, term, found) => {
    expect(saysTerm(text, term)).toBe(found);
  });
});
