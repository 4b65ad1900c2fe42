import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { bigProject } from "../../../bench/support/bigProject.ts";
import { chromiumAvailable, nav, signInThroughPage, startStudio, type Studio } from "./browser.ts";

setDefaultTimeout(120_000);
const enabled = chromiumAvailable();
let s: Studio;
let big: ReturnType<typeof bigProject>;

beforeAll(async () => {
  if (!enabled) return;
  s = await startStudio({ model: false });
  // 120 minds: more than two pages of the minds list (50 rows a page).
  big = bigProject(s.app.ctx as never, { minds: 120, documents: 30 });
}, 120_000);
afterAll(async () => {
  await s?.close();
});

/** Long lists in real Chromium: the minds list renders a page of rows, pages through the rest, searches them all. */
describe.skipIf(!enabled)("the Studio's long lists (Chromium)", () => {
  test("the minds list shows 50 rows at a time, Next and Previous page, a search looks past the page and starts again at its first", async () => {
    const { page } = s;
    await signInThroughPage(s);
    await page.goto(`/#/p/${big.projectId}/overview`);
    await nav(s, "Minds");
    const rows = page.locator("table.list tbody tr");
    await page.getByText("1–50 of 120").waitFor();
    expect(await rows.count()).toBe(50);
    const firstPage = await rows.allTextContents();
    await page.getByRole("button", { name: "Next" }).click();
    await page.getByText("51–100 of 120").waitFor();
    const secondPage = await rows.allTextContents();
    expect(secondPage.some((r) => firstPage.includes(r))).toBe(false);
    await page.getByRole("button", { name: "Next" }).click();
    await page.getByText("101–120 of 120").waitFor();
    expect(await rows.count()).toBe(20);
    expect(await page.getByRole("button", { name: "Next" }).isDisabled()).toBe(true);
    await page.getByRole("button", { name: "Previous" }).click();
    await page.getByText("51–100 of 120").waitFor();

    // Mind 7 is on the first page, mind 117 on the last: a search finds it from any page, and shows no pager for one hit.
    await page.getByLabel("Search minds").fill(" 117");
    await expect(rows.count()).resolves.toBe(1);
    expect(await rows.first().textContent()).toContain("117");
    expect(await page.locator(".pager").count()).toBe(0);
    await page.getByLabel("Search minds").fill("");
    await page.getByText("1–50 of 120").waitFor();
    expect(s.errors).toEqual([]);
  });

  test("the players page asks for the minds only once a player is shown", async () => {
    const { page } = s;
    const mindLists: string[] = [];
    const seen = (r: { url(): string }) => r.url().endsWith(`/projects/${big.projectId}/minds`) && mindLists.push(r.url());
    page.on("request", seen);
    await page.goto(`/#/p/${big.projectId}/overview`);
    await nav(s, "Players");
    await page.getByRole("heading", { name: "Players" }).waitFor();
    await page.waitForLoadState("networkidle");
    expect(mindLists).toEqual([]);
    await page.getByLabel("Player id").fill("nobody-yet");
    // the minds are asked for after the player is shown, in a later render: wait for that request, not for idle
    const asked = page.waitForRequest((r) => r.url().endsWith(`/projects/${big.projectId}/minds`), { timeout: 15_000 });
    await page.getByRole("button", { name: "Find" }).click();
    await page.getByText("Nothing is kept about this player.").waitFor();
    await asked;
    expect(mindLists.length).toBe(1);
    page.off("request", seen);
    expect(s.errors).toEqual([]);
  });
});
