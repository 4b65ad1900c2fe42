import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { importPath } from "../../../src/packs/importPack.ts";
import { DEMO_PACK } from "../../packs/helpers.ts";
import { chromiumAvailable, signInThroughPage, startStudio, type Studio } from "./browser.ts";

setDefaultTimeout(120_000);
const enabled = chromiumAvailable();
let s: Studio;
let projectId = "";
let cryptId = "";

beforeAll(async () => {
  if (!enabled) return;
  s = await startStudio({ model: false });
  const r = await importPath(s.app.ctx, DEMO_PACK);
  projectId = r.projectId;
  cryptId = r.ids.documents["sealed-crypt"];
}, 120_000);
afterAll(async () => {
  await s?.close();
});

/** Until an input shows the value the page loaded into it (the editors fill their fields after a fetch). */
async function valueOf(input: { inputValue(): Promise<string> }, want: string): Promise<string> {
  // up to 30 s: how soon the fetch fills it is the machine's (a loaded box took seconds)
  for (let i = 0; i < 600; i++) {
    const v = await input.inputValue();
    if (v === want) return v;
    await Bun.sleep(50);
  }
  return input.inputValue();
}

/** World state in the Studio, on the demo world: the simulator's verdicts and conditions checked as typed. */
describe.skipIf(!enabled)("world state in the Studio (Chromium)", () => {
  test("the simulator: setting the flood quest's stage flips The Sealed Crypt from out to in, with its reason", async () => {
    const { page } = s;
    await signInThroughPage(s);
    await page.goto(`/#/p/${projectId}/knowledge`);
    const sim = page.getByTestId("state-simulator");
    const aldous = sim.getByTestId("sim-mind-Brother Aldous");
    const crypt = aldous.getByTestId("sim-doc").filter({ hasText: "The Sealed Crypt" });
    await crypt.waitFor();
    expect(await crypt.locator(".verdict").textContent()).toBe("out");
    expect(await crypt.textContent()).toContain("when quest.flood.stage >= 2: its condition is false");
    const rule = aldous.getByTestId("sim-line").filter({ hasText: "crypt stair is sealed" });
    expect(await rule.locator(".verdict").textContent()).toBe("applies");

    await sim.getByLabel("World state key 1").fill("quest.flood.stage");
    await sim.getByLabel("World state value 1").fill("2");
    await sim.getByRole("button", { name: "Simulate" }).click();
    await crypt.locator(".verdict", { hasText: "in" }).waitFor();
    expect(await crypt.textContent()).toContain("when quest.flood.stage >= 2: its condition holds");
    expect(await rule.locator(".verdict").textContent()).toBe("off");
    await sim.scrollIntoViewIfNeeded();
    await s.shot("world-state-simulator");

    // a value of the wrong type for a declared key is refused with its reason
    await sim.getByLabel("World state value 1").fill("two");
    await sim.getByRole("button", { name: "Simulate" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "world.quest.flood.stage: declared as number" }).textContent()).resolves.toContain("declared as number");
  });

  test("the document editor shows a bad condition's problem as it is typed, and a corrected one clears it", async () => {
    const { page } = s;
    await page.goto(`/#/p/${projectId}/lore/${cryptId}`);
    const condition = page.getByRole("form", { name: "Document editor" }).getByLabel("Condition");
    expect(await valueOf(condition, "quest.flood.stage >= 2")).toBe("quest.flood.stage >= 2");
    await condition.fill('quest.flood.stage >= "two"');
    const problems = page.getByTestId("condition-problems");
    await problems.waitFor();
    expect(await problems.textContent()).toContain("quest.flood.stage (number)");
    expect(await condition.getAttribute("aria-invalid")).toBe("true");
    await condition.fill("quest.flood.stage >= 3");
    await problems.waitFor({ state: "detached" });
    expect(s.errors.filter((e) => !e.includes("400"))).toEqual([]);
  });

  test("the mind editor keeps conditional restrictions as rows (saving writes them back unchanged)", async () => {
    const { page } = s;
    const aldous = (await s.app.ctx.db.query("SELECT id FROM entity_minds WHERE key = 'brother-aldous'").get()) as { id: string };
    await page.goto(`/#/p/${projectId}/minds/${aldous.id}`);
    const form = page.getByRole("form", { name: "Mind editor" });
    const when = form.getByLabel("Conditional restriction lines condition 1");
    expect(await valueOf(when, "!(quest.flood.stage >= 2)")).toBe("!(quest.flood.stage >= 2)");
    const saved = page.waitForResponse((r) => r.request().method() === "PATCH" && r.url().includes(`/minds/${aldous.id}`));
    await form.getByRole("button", { name: "Save mind" }).click();
    expect((await saved).status()).toBe(200);
    const r = await s.app.ctx.db.query("SELECT restrictions FROM entity_minds WHERE id = ?").get(aldous.id) as { restrictions: string };
    expect(JSON.parse(r.restrictions).at(-1)).toEqual({ text: "Does not speak of what lies below the abbey; the crypt stair is sealed until the river wall holds.", when: "!(quest.flood.stage >= 2)" });
  });

  test("the playground sends this request's state: the conditional hint applies, the restriction goes off, in the trace and the prompt", async () => {
    const { page } = s;
    const aldous = (await s.app.ctx.db.query("SELECT id FROM entity_minds WHERE key = 'brother-aldous'").get()) as { id: string };
    await page.goto(`/#/p/${projectId}/playground?mind=${aldous.id}`);
    await page.getByLabel("Mind").selectOption(aldous.id);
    await page.getByText("State (this request)").click();
    await page.getByRole("button", { name: "Add key" }).click();
    await page.getByLabel("Request state key 1").fill("quest.flood.stage");
    await page.getByLabel("Request state value 1").fill("2");
    await page.getByLabel("Your line").fill("Good morning, Brother.");
    await page.getByRole("button", { name: "Send" }).click();
    const lines = page.getByTestId("lines-0");
    await lines.waitFor();
    expect(await lines.locator("li", { hasText: "river wall, and mentions" }).locator(".verdict").textContent()).toBe("applies");
    expect(await lines.locator("li", { hasText: "crypt stair is sealed" }).locator(".verdict").textContent()).toBe("off");
    const prompt = await page.getByTestId("trace-0").locator("details pre").allTextContents();
    expect(prompt.join("\n")).toContain("[Now]\nThings you tend to do:\n- Thanks the player for their work on the river wall");
  });
});
