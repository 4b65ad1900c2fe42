import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { XMLParser } from "fast-xml-parser";
import { runCli } from "../../src/cli/runCli.ts";
import { tempDir } from "../support/testApp.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { DEMO_SUITE, EXAMPLES } from "./helpers.ts";

// real llama.cpp (a tiny random-weight GGUF) on 2 shared cores, booted on a scratch copy per run
setDefaultTimeout(240_000);

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const dataDir = join(dir, "data");
const model = ensureTinyModel(undefined, { nCtx: 8192 });
// the tiny model's vocabulary is mostly bytes: the demo's lore needs a large context to fit
const env = { LOREHOLD_CONTEXT_SIZE: "8192", LOREHOLD_THREADS: "1", LOREHOLD_PARALLEL: "1", LOREHOLD_LOG_LEVEL: "silent", LOREHOLD_MAX_REPLY_TOKENS: "4" };

async function cli(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli([...args, "--data-dir", dataDir], { out: (l) => out.push(l), err: (l) => err.push(l) }, env);
  return { code, out: out.join("\n"), err: err.join("\n"), json: out.length === 1 && out[0].startsWith("{") ? JSON.parse(out[0]) : undefined };
}

const failing = join(dir, "failing.test.yaml");
writeFileSync(
  failing,
  `tests:
  - name: the inn
    mind: garrick
    turns:
      - say: What is the Rusty Tankard like, and who brews the Wend Water porter?
        expect: { knowsFrom: [smugglers-tunnel] }
  - name: a plain hello
    mind: garrick
    turns:
      - say: Hello.
`,
);

describe("lorehold test", () => {
  let passingRun = "";
  let failingRun = "";
  test("the demo suite passes: a table with progress, exit 0, JUnit XML of the JUnit shape", async () => {
    expect((await cli("import", join(EXAMPLES, "thornhaven.yaml"), "--json")).code).toBe(0);
    const scratchBefore = readdirSync(tmpdir()).filter((d) => d.startsWith("lorehold-loretest-"));
    const junit = join(dir, "junit.xml");
    const r = await cli("test", DEMO_SUITE, "--model", model, "--junit", junit);
    expect({ code: r.code, err: r.err.split("\n").length }).toEqual({ code: 0, err: 6 });
    expect(r.err).toContain("[########################] 6/6 pass");
    expect(r.out).toContain("6 passed, 0 failed");
    passingRun = /run (ltr_\w+)/.exec(r.out)![1];
    // nothing left of the scratch copy
    expect(readdirSync(tmpdir()).filter((d) => d.startsWith("lorehold-loretest-"))).toEqual(scratchBefore);
    const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(readFileSync(junit, "utf8"));
    const suites = xml.testsuites;
    expect(suites).toMatchObject({ tests: "6", failures: "0", errors: "0" });
    const suite = suites.testsuite;
    expect(suite).toMatchObject({ name: DEMO_SUITE, tests: "6", failures: "0", errors: "0", skipped: "0" });
    expect(suite.testcase.length).toBe(6);
    for (const c of suite.testcase) {
      expect(Object.keys(c)).toEqual(expect.arrayContaining(["name", "classname", "time", "system-out"]));
      expect(c.failure).toBeUndefined();
    }
  });

  test("a failing case: exit 1, the failed check and the reply printed, a <failure> in the JUnit file", async () => {
    const junit = join(dir, "failing.xml");
    const r = await cli("test", failing, "--model", model, "--junit", junit);
    expect(r.code).toBe(1);
    expect(r.out).toContain("1 passed, 1 failed");
    expect(r.out).toContain('knowsFrom smugglers-tunnel: no chunk of "The Cellar Run" reached the prompt');
    failingRun = /run (ltr_\w+)/.exec(r.out)![1];
    const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(readFileSync(junit, "utf8"));
    expect(xml.testsuites).toMatchObject({ tests: "2", failures: "1", errors: "0" });
    const [inn, hello] = xml.testsuites.testsuite.testcase;
    expect(inn.failure.type).toBe("expectation");
    expect(inn.failure.message).toBe("passed 0 of 1 runs (needs 100%)");
    expect(inn.failure["#text"]).toContain("knowsFrom smugglers-tunnel");
    expect(hello.failure).toBeUndefined();
  });

  test("--json prints one object; --runs runs every case that many times", async () => {
    const r = await cli("test", failing, "--model", model, "--json", "--runs", "2");
    expect(r.code).toBe(1);
    expect(r.json.run).toMatchObject({ status: "FAILED", progress: { total: 2, done: 2, passed: 1, failed: 1 } });
    expect(r.json.cases.map((c: any) => [c.name, c.passed, c.passRate])).toEqual([["the inn", false, 0], ["a plain hello", true, 1]]);
  });

  test("--compare RUN_A RUN_B: the case whose verdict changed, both replies and traces", async () => {
    // the demo run and the failing run share no case name: compare two runs of the failing file's sibling instead
    const fixed = join(dir, "fixed.test.yaml");
    writeFileSync(fixed, readFileSync(failing, "utf8").replace("knowsFrom: [smugglers-tunnel]", "knowsFrom: [rusty-tankard]"));
    const f = await cli("test", fixed, "--model", model, "--json");
    expect(f.code).toBe(0);
    const r = await cli("test", "--compare", failingRun, f.json.run.id, "--json");
    expect(r.code).toBe(0);
    expect(r.json.changed.map((c: any) => [c.name, c.direction])).toEqual([["the inn", "fixed"]]);
    expect(r.json.unchanged).toBe(1);
    const text = await cli("test", "--compare", failingRun, f.json.run.id);
    expect(text.out).toContain("FIXED  the inn");
    expect(text.out).toContain("lore: ");
    expect(passingRun).toMatch(/^ltr_/);
  });

  test("A/B: --versus-model runs the suite on a second model and compares the two runs in one command", async () => {
    // a second random-weight model of the same shapes (another seed): a different fingerprint, the same structure
    const other = ensureTinyModel(join(dir, "other"), { nCtx: 8192, seed: 7 });
    const r = await cli("test", failing, "--model", model, "--versus-model", other, "--json");
    expect(r.code).toBe(1);
    expect(r.json.a.run.model).not.toBe(r.json.b.run.model);
    // the verdicts are structural: the same on both models, so nothing changed
    expect(r.json.compare).toMatchObject({ changed: [], unchanged: 2 });
  });

  test("bad files: exit 1 with the path of every problem; nothing runs", async () => {
    const bad = join(dir, "bad.test.yaml");
    writeFileSync(bad, `tests:\n  - name: x\n    mind: nobody\n    turns:\n      - say: hi\n        expect: { mention: [a] }\n`);
    const r = await cli("test", bad, "--model", model);
    expect(r.code).toBe(1);
    expect(r.err).toContain("Invalid lore tests");
    expect(r.err).toContain("bad.test.yaml: tests[0].turns[0].expect.mention: unknown field (did you mean 'mentions'?)");
    const missing = await cli("test", join(dir, "nope"), "--model", model, "--json");
    expect(missing.code).toBe(1);
    expect(missing.json.details[0]).toContain("no such file or folder");
  });
});
