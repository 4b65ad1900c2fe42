import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { importPack, parsePackText } from "../../../src/packs/importPack.ts";
import { chromiumAvailable, nav, signInThroughPage, startStudio, type Studio } from "./browser.ts";

// a real server with the tiny random-weight model, its jobs running, and headless Chromium, on 2 shared cores
setDefaultTimeout(240_000);
const enabled = chromiumAvailable();
let s: Studio;
let projectId = "";

// Short lore: the tiny model's mostly-byte vocabulary makes every character a token, and its context is 2,048.
const PACK = `
project: { name: Tiny Tavern }
tags: [ { name: tavern }, { name: smugglers } ]
minds:
  - { key: garrick, entityName: Garrick, personality: Cheerful innkeeper., knowledgeTags: [tavern] }
documents:
  - { key: menu, name: The Menu, tags: [tavern], content: "Ale, mutton stew and honey bread. Garrick brews a dark porter." }
  - { key: tunnel, name: The Tunnel, tags: [smugglers], content: "A tunnel runs from the cellar to the docks." }
`;
const suite = (knows: string) => `tests:
  - name: knows the menu
    mind: garrick
    turns:
      - say: What is on the menu, and what does Garrick brew?
        expect:
          knowsFrom: [${knows}]
          noLeakOf: [smugglers]
`;

beforeAll(async () => {
  if (!enabled) return;
  s = await startStudio();
  projectId = importPack(s.app.ctx, parsePackText(PACK, "tiny.yaml")).projectId;
  await s.app.scheduler.trigger("indexer");
}, 120_000);
afterAll(async () => {
  await s?.close();
});

describe.skipIf(!enabled)("the Studio's Lore tests page (Chromium)", () => {
  test("write a suite with validation, run it with live progress, read the results, compare two runs", async () => {
    const { page } = s;
    await signInThroughPage(s);
    await page.goto(`/#/p/${projectId}/overview`);
    await nav(s, "Lore tests");
    await page.getByRole("heading", { name: "Lore tests" }).waitFor();
    const editor = page.getByLabel("Suite");

    // a misspelt expectation and an unknown document: each problem with its path
    await editor.fill(suite("menu").replace("noLeakOf", "noLeak").replace("[menu]", "[nothing]"));
    await page.getByRole("button", { name: "Validate" }).click();
    const problems = page.getByTestId("tests-problems");
    await problems.getByText("noLeak: unknown field (did you mean 'noLeakOf'?)", { exact: false }).waitFor();

    await editor.fill(suite("menu"));
    await page.getByRole("button", { name: "Validate" }).click();
    await page.getByTestId("tests-valid").getByText("Valid: 1 case").waitFor();

    // run it: the run appears, the job runs it on the server, the page follows it to PASSED
    await page.getByRole("button", { name: "Run suite" }).click();
    const runs = page.getByTestId("test-run");
    await runs.first().waitFor();
    await runs.first().getByText("PASSED", { exact: true }).waitFor({ timeout: 120_000 });
    const results = page.getByTestId("test-results");
    await results.getByText("PASSED", { exact: true }).waitFor();
    // a passing case is folded: open it to read its turn
    await results.getByTestId("test-case").locator("summary").click();
    await results.getByTestId("test-check").filter({ hasText: "knowsFrom menu" }).waitFor();
    expect(await results.getByTestId("test-lore").first().textContent()).toContain("The Menu");
    await s.shot("lore-tests-run");

    // a second run that breaks the case, then the two compared: the case that changed, both sides
    await editor.fill(suite("tunnel"));
    await page.getByRole("button", { name: "Run suite" }).click();
    await page.getByTestId("test-run").first().getByText("FAILED", { exact: true }).waitFor({ timeout: 120_000 });
    expect(await runs.count()).toBe(2);
    await runs.nth(1).getByRole("checkbox").check();
    await runs.nth(0).getByRole("checkbox").check();
    await page.getByRole("button", { name: "Compare the two selected runs" }).click();
    const diff = page.getByTestId("test-diff");
    await diff.waitFor();
    expect(await diff.textContent()).toContain("BROKE");
    expect(await diff.getByTestId("test-reply").count()).toBe(2);
    expect(await diff.getByTestId("test-check").filter({ hasText: "knowsFrom tunnel" }).textContent()).toContain("✗");
    await s.shot("lore-tests-compare");
    // the draft is kept in the browser
    await page.reload();
    await page.getByLabel("Suite").waitFor();
    expect(await page.getByLabel("Suite").inputValue()).toBe(suite("tunnel"));
    expect(s.errors.filter((e) => !e.includes("400"))).toEqual([]);
  });

  test("save a playground turn as a test: the case lands in the suite draft with the lore that reached the prompt, and validates", async () => {
    const { page } = s;
    // a reply of the tiny model on 2 shared cores under load can take longer than the default 30 s wait
    page.setDefaultTimeout(120_000);
    await page.goto(`/#/p/${projectId}/playground`);
    const mindId = (s.app.ctx.db.query("SELECT id FROM entity_minds WHERE key = 'garrick'").get() as { id: string }).id;
    // the select sits inside its label, so once its options load the label's name is "Mind Garrick": an exact "Mind"
    // finds it only while the minds are still loading
    await page.getByRole("combobox", { name: /^Mind\b/ }).selectOption(mindId);
    await page.getByLabel("Your line").fill("What is on the menu tonight?");
    await page.getByLabel("Your line").press("Enter");
    await page.getByRole("button", { name: "Save as a test" }).click({ timeout: 120_000 });
    await page.getByRole("heading", { name: "Lore tests" }).waitFor();
    const draft = await page.getByLabel("Suite").inputValue();
    expect(draft).toContain('- name: "Garrick: What is on the menu tonight?"');
    expect(draft).toContain('knowsFrom: ["The Menu"]');
    await page.getByRole("button", { name: "Validate" }).click();
    await page.getByTestId("tests-valid").getByText("Valid: 2 cases").waitFor();
  });
});
