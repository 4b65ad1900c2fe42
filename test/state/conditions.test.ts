import { describe, expect, test } from "bun:test";
import { compile, compiledCondition, conditionHolds, TurnConditions } from "../../src/conditions/compileCondition.ts";
import { checkCondition, conditionProblems, type KeyDeclaration } from "../../src/conditions/checkCondition.ts";
import { CONDITION_LIMITS, ConditionRefused } from "../../src/conditions/parseCondition.ts";
import { emptyScope, type Scope } from "../../src/conditions/scope.ts";
import type { StateValue } from "../../src/state/stateKeys.ts";

const map = (o: Record<string, StateValue>) => new Map(Object.entries(o));
const scope: Scope = emptyScope({
  player: map({ "quest.flood.stage": 2, "pose.sitting": true, mood: "grim" }),
  world: map({ "quest.flood.stage": 1, weather: "rain", "bridge.open": false, gold: 7.5 }),
  defaults: map({ "faction.watch": "neutral", "quest.flood.stage": 0 }),
  trust: 3.5,
  turn: 4,
});
const holds = (text: string, s: Scope = scope) => compile(text).holds(s);
const refused = (text: string): string[] => {
  try {
    compile(text);
  } catch (e) {
    if (e instanceof ConditionRefused) return e.problems.map((p) => p.reason);
    throw e;
  }
  return [];
};

describe("values and where keys resolve", () => {
  const rows: [string, boolean][] = [
    ["trust >= 3 && quest.flood.stage >= 2", true], // the player's stage (2) before the world's (1)
    ["world.quest.flood.stage == 1", true],
    ["player.quest.flood.stage == 2", true],
    ["player.weather == 'rain'", false], // the player has no weather
    ["weather == 'rain'", true], // falls through to the world
    ["faction.watch == 'neutral'", true], // a declared default
    ["world.faction.watch == 'neutral'", true], // defaults are the world's
    ["player.faction.watch == 'neutral'", false],
    ["pose.sitting", true],
    ["bridge.open", false],
    ["!bridge.open", true],
    ["gold > 7 && gold < 8", true], // numbers are doubles
    ["trust == 3.5 && turn == 4", true],
    ["turn - 1 > 2", true],
    ["-gold < 0", true],
    ["mood in ['grim', 'sad']", true],
    ["mood in ['glad']", false],
    ["gold in [7.5, 8]", true],
    ["pose.sitting ? trust > 3 : false", true],
    ["'a' < 'b'", true],
  ];
  for (const [text, want] of rows) test(`${text} → ${want}`, () => expect(holds(text)).toBe(want));
});

describe("a missing key reads as unset", () => {
  const rows: [string, boolean][] = [
    ["quest.sealed", false],
    ["!quest.sealed", true],
    ["quest.sealed == true", false],
    ["quest.sealed == false", false], // comparisons with unset are false, both ways
    ["quest.sealed != true", false],
    ["quest.count >= 0", false],
    ["quest.count < 0", false],
    ["!(quest.count >= 2)", true],
    ["quest.count in [1, 2]", false],
    ["quest.count + 1 > 0", false], // arithmetic with unset stays unset
    ["has(quest.sealed)", false],
    ["!has(quest.sealed)", true],
    ["has(weather) && has(world.weather) && !has(player.weather)", true],
    ["has(faction.watch)", true], // a default is a value
    ["quest.sealed || weather == 'rain'", true],
    ["quest.sealed && true", false],
    ["quest.sealed ? true : true", true], // unset counts as false in ? : — the else branch
  ];
  for (const [text, want] of rows) test(`${text} → ${want}`, () => expect(holds(text)).toBe(want));

  test("an empty scope: every comparison false, every negation of a key true", () => {
    const s = emptyScope();
    expect(holds("a.b >= 0", s)).toBe(false);
    expect(holds("!a.b", s)).toBe(false === holds("a.b", s));
    expect(holds("trust == 0 && turn == 0", s)).toBe(true);
  });
});

describe("a value of the wrong type at run time makes the condition false (lore stays hidden)", () => {
  const rows: [string, boolean][] = [
    ["mood >= 2", false],
    ["!(mood >= 2)", false],
    ["mood == 2", false],
    ["mood != 2", false],
    ["!mood", false],
    ["mood && true", false],
    ["gold + mood > 0", false],
    ["false && mood >= 2", false], // short-circuit: never evaluated
    ["true || mood >= 2", true],
    ["1 / 0 > 0", false], // a non-finite result reads as unset
  ];
  for (const [text, want] of rows) test(`${text} → ${want}`, () => expect(holds(text)).toBe(want));
});

describe("precedence: as in CEL (and most languages)", () => {
  const rows: [string, boolean][] = [
    ["true || false && false", true], // && binds tighter than ||
    ["(true || false) && false", false],
    ["!true || true", true], // ! binds tightest
    ["!(true || true)", false],
    ["1 + 2 * 3 == 7", true],
    ["(1 + 2) * 3 == 9", true],
    ["10 - 4 - 3 == 3", true], // left-associative
    ["2 < 3 == true", true],
    ["true ? false : true || true", false], // ? : is the loosest
    ["7 % 4 == 3", true],
  ];
  for (const [text, want] of rows) test(`${text} → ${want}`, () => expect(holds(text)).toBe(want));
});

describe("what is refused, and why", () => {
  const rows: [string, RegExp][] = [
    ["", /non-empty/],
    ["trust >= 3 &&", /^syntax: /],
    ["size(mood) > 1", /unknown function 'size'/],
    ["mood.size() > 1", /unknown function 'size'/],
    ["mood.startsWith('g')", /unknown function 'startsWith'/],
    ["[1, 2].all(x, x > 0)", /unknown function 'all'/],
    ["quest[0] == 1", /dotted names/],
    ["{} == {}", /maps are not supported|Exceeded maxMapEntries/],
    ["mood == null", /has\(key\)/],
    ["world == 1", /write world\.<key>/],
    ["trust.level > 1", /has no fields/],
    ["Quest.Flood > 1", /not a state key/],
    ["has(trust)", /has\(\) takes a state key/],
    ["has(1)", /has\(\) takes a state key/],
    ["mood in mood", /takes a list/],
    ["[1, 2] == [1, 2]", /only on the right of `in`/],
    ["mood in [1, 'a']", /one type/],
    ["mood in [gold]", /values only/],
    ["b'x' == b'x'", /only true\/false, numbers and text/],
    ["1u == 1u", /only true\/false, numbers and text/],
  ];
  for (const [text, why] of rows) test(`${JSON.stringify(text)} → ${why}`, () => expect(refused(text).join("; ")).toMatch(why));
});

describe("limits and hostile input", () => {
  test("length: at the limit it parses, past it is refused before parsing", () => {
    const atLimit = `mood == '${"a".repeat(CONDITION_LIMITS.stringChars)}'` + " || true".repeat(50);
    expect(atLimit.length).toBeLessThanOrEqual(CONDITION_LIMITS.chars);
    expect(refused(atLimit)).toEqual([]);
    expect(refused("true || ".repeat(200) + "true")).toEqual([`at most ${CONDITION_LIMITS.chars} characters`]);
    // A megabyte of text is refused by its length alone, not parsed: the parser would refuse it for its depth
    // (the next test's message), and only the length check says this. (No time bound: how long anything takes
    // depends on the machine and its load.)
    expect(refused("(".repeat(1_000_000))).toEqual([`at most ${CONDITION_LIMITS.chars} characters`]);
  });
  test("nesting depth: a dozen parentheses parse, deeper ones are refused", () => {
    expect(holds(`${"(".repeat(12)}true${")".repeat(12)}`)).toBe(true);
    expect(refused(`${"(".repeat(40)}true${")".repeat(40)}`).join()).toMatch(/maxDepth/);
    expect(refused(`${"!".repeat(60)}true`).join()).toMatch(/nested more than 20 levels/);
    expect(holds(`${"!".repeat(20)}true`)).toBe(true);
  });
  test("size: node count and list length are bounded", () => {
    expect(refused(Array.from({ length: 150 }, () => "a").join("||")).join()).toMatch(/maxAstNodes/);
    // A long flat list of alternatives is one level of nesting.
    expect(holds(Array.from({ length: 60 }, (_, i) => `k${i}`).join(" || ") + " || true")).toBe(true);
    expect(refused(`mood in [${Array.from({ length: CONDITION_LIMITS.listItems + 1 }, (_, i) => i).join(", ")}]`).join()).toMatch(/maxListElements/);
  });
  test("literals: long text and huge numbers are refused", () => {
    expect(refused(`mood == '${"a".repeat(CONDITION_LIMITS.stringChars + 1)}'`).join()).toMatch(/at most 200 characters/);
    expect(refused("gold > 1e300").join()).toMatch(/at most 1000000000000000/);
    expect(refused("gold > 99999999999999999999").join()).toMatch(/at most/);
    expect(refused("gold > 1000000000000000")).toEqual([]);
  });
  test("prototype names reach nothing: refused as keys, and a state map holding them is never consulted by name", () => {
    for (const text of ["__proto__", "quest.__proto__ == 1", "constructor == 1", "quest.constructor.name == 'Object'", "x.prototype", "toString == 1", "mood.__proto__.polluted"]) {
      expect(refused(text).length).toBeGreaterThan(0);
    }
    // hasOwnProperty reads as a plain (lower-case) key: unset here.
    expect(refused("hasownproperty")).toEqual([]);
    expect(holds("hasownproperty")).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
  test("control characters and other scripts in text literals are just text", () => {
    expect(holds("mood != '\\u0000\\n' && mood != 'Ωμέγα'")).toBe(true);
  });
});

describe("the compile cache and a turn's evaluations", () => {
  test("one compiled condition per text", () => {
    expect(compiledCondition("trust > 1")).toBe(compiledCondition("trust > 1"));
  });
  test("a condition that no longer compiles does not hold (fail closed)", () => {
    expect(conditionHolds("trust >= ", scope)).toBe(false);
  });
  test("TurnConditions evaluates each distinct text once", () => {
    const turn = new TurnConditions(scope);
    const c = compiledCondition("weather == 'rain'");
    let calls = 0;
    const holdsBefore = c.holds;
    (c as { holds: typeof c.holds }).holds = (s) => (calls++, holdsBefore(s));
    try {
      for (let i = 0; i < 100; i++) expect(turn.holds("weather == 'rain'")).toBe(true);
      expect(calls).toBe(1);
    } finally {
      (c as { holds: typeof c.holds }).holds = holdsBefore;
    }
  });
});

describe("authoring: types against the declared keys", () => {
  const declared = new Map<string, KeyDeclaration>([
    ["quest.flood.stage", { type: "number", default: 0 }],
    ["faction.watch", { type: "string", enum: ["friendly", "hostile", "neutral"] }],
    ["pose.sitting", { type: "boolean" }],
  ]);
  const rows: [string, RegExp | null][] = [
    ["quest.flood.stage >= 2 && trust >= 3", null],
    ["undeclared.key == 'x' || undeclared.key > 2", null], // undeclared keys may hold anything
    ["faction.watch == 'hostile'", null],
    ["quest.flood.stage >= 'two'", /'>=' compares quest\.flood\.stage \(number\) with "two"/],
    ["'two' <= quest.flood.stage", /compares "two" with quest\.flood\.stage/],
    ["world.quest.flood.stage == true", /compares world\.quest\.flood\.stage \(number\) with true/],
    ["faction.watch == 'frendly'", /faction\.watch is one of "friendly", "hostile", "neutral"; "frendly" is not/],
    ["faction.watch in ['friendly', 'hostle']", /"hostle" is not/],
    ["faction.watch in [1, 2]", /'in' looks for faction\.watch \(string\) among number values/],
    ["!quest.flood.stage", /'!' needs true\/false, quest\.flood\.stage \(number\) is a number/],
    ["pose.sitting && trust", /'&&' needs true\/false, trust is a number/],
    ["pose.sitting < true", /orders numbers or text/],
    ["quest.flood.stage + 'a' > 1", /'\+' needs a number/],
    ["quest.flood.stage", /a condition is true or false, this is a number/],
    ["pose.sitting ? 1 : 'x'", /both branches/],
  ];
  for (const [text, want] of rows) {
    test(`${text} → ${want ?? "fine"}`, () => {
      const problems = checkCondition(text, declared).map((p) => p.reason).join("; ");
      if (want) expect(problems).toMatch(want);
      else expect(problems).toBe("");
    });
  }
  test("every problem is reported with the path and a 1-based position", () => {
    expect(conditionProblems("documents[2].when", "foo(1) || bar(2)", declared)).toEqual([
      "documents[2].when: unknown function 'foo' (conditions know has(key)) (at character 1)",
      "documents[2].when: unknown function 'bar' (conditions know has(key)) (at character 11)",
    ]);
  });
});
