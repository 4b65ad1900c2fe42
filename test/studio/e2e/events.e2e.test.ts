import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { buildWorld, type World } from "../../support/world.ts";
import { chromiumAvailable, nav, signInThroughPage, startStudio, type Studio } from "./browser.ts";

setDefaultTimeout(120_000);
const enabled = chromiumAvailable();
let s: Studio;
let w: World;

beforeAll(async () => {
  if (!enabled) return;
  s = await startStudio({ model: false });
  w = buildWorld({ db: s.app.db, clock: { now: () => new Date(), advance: () => {} } } as any, "Thornhaven");
}, 120_000);
afterAll(async () => {
  await s?.close();
});

/** The events page in real Chromium: send an event as the game would, find it in the log, see who knows it and through whom. */
describe.skipIf(!enabled)("events in the Studio (Chromium)", () => {
  test("send an event, find it in the log, who knows it: the witness, then those gossip told", async () => {
    const { page } = s;
    await signInThroughPage(s);
    await page.goto(`/#/p/${w.projectId}/overview`);
    await nav(s, "Events");
    const form = page.getByRole("form", { name: "Send an event" });
    await form.getByLabel("Event type").fill("fire");
    await form.getByLabel("What happened").fill("The granary burned at midnight");
    await form.getByLabel("Importance").fill("8");
    await form.getByRole("group", { name: "Witnesses" }).getByLabel("Garrick").check();
    await form.getByRole("button", { name: "Send event" }).click();
    const event = page.getByTestId("event").filter({ hasText: "fire: The granary burned at midnight" });
    await event.waitFor();
    expect(await event.textContent()).toContain("importance 8 · 1 witnesses");

    // gossip runs: Garrick's friend Elena hears it (an hour after him: Garrick is a "normal" gossip)
    await s.app.scheduler.trigger("gossip");
    await event.getByRole("button", { name: "Who knows" }).click();
    const knowers = event.getByTestId("knower");
    await knowers.nth(1).waitFor();
    const lines = await knowers.allTextContents();
    expect(lines[0]).toContain("Garrick saw it");
    // his friend and his mentor hear it from him, an hour after he saw it
    const elena = lines.find((l) => l.startsWith("Elena"))!;
    expect(elena).toContain("Elena heard it: Garrick → Elena");
    expect(elena).toContain("will know at");
    expect(lines.some((l) => l.startsWith("Blank Villager heard it: Garrick → Blank Villager"))).toBe(true);
    await s.shot("events-who-knows");

    // the filters: by mind (Elena heard of it), by type (no flood)
    await page.getByRole("search").getByLabel("Mind").selectOption({ label: "Elena" });
    await page.getByText("1 events").waitFor();
    await page.getByRole("search").getByLabel("Type").fill("flood");
    await page.getByText("0 events").waitFor();
    expect(s.errors).toEqual([]);
  });
});
