import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { chromiumAvailable, nav, signInThroughPage, startStudio, type Studio } from "./browser.ts";

setDefaultTimeout(600_000);
const enabled = chromiumAvailable();
let s: Studio;
let projectId = "";

const api = async (method: string, path: string, body?: unknown) => {
  const r = await fetch(`${s.base}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${s.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, body: (await r.json()) as any };
};

beforeAll(async () => {
  if (!enabled) return;
  s = await startStudio();
  projectId = (await api("POST", "/projects", { name: "Saltmarsh" })).body.id;
  await api("POST", `/projects/${projectId}/tags`, { name: "harbour" });
  await api("POST", `/projects/${projectId}/minds`, { entityName: "Mara", personality: "A quiet harbour pilot.", knowledgeTags: ["harbour"] });
  await api("POST", `/projects/${projectId}/minds`, { entityName: "Odile", personality: "The brisk harbourmaster.", knowledgeTags: ["harbour"] });
  await signInThroughPage(s);
}, 120_000);
afterAll(async () => {
  await s?.close();
});

describe.skipIf(!enabled)("the scene playground (Chromium)", () => {
  test("pick two minds, talk to the table: the addressed one answers, with why and its cost; end the scene", async () => {
    const { page } = s;
    await page.goto(`/#/p/${projectId}/overview`);
    await nav(s, "Scenes");
    await page.getByRole("heading", { name: "Scenes" }).waitFor();
    await page.getByLabel("Mara").check();
    await page.getByLabel("Odile").check();
    await page.getByLabel("Location").fill("the north quay");
    await page.getByRole("button", { name: "Start a scene" }).click();
    await page.getByRole("button", { name: "End the scene" }).waitFor();
    await page.getByLabel("Lines per turn (1–6)").fill("1");
    await page.getByLabel("Your line").fill("Odile, what is the berth fee?");
    await page.getByRole("button", { name: "Say" }).click();
    const why = page.getByRole("complementary", { name: "Why line 2" });
    await why.waitFor();
    await page.locator(".cursor").waitFor({ state: "detached" });
    expect(await page.getByTestId("scene-line-0").textContent()).toContain("Odile, what is the berth fee?");
    expect(await page.getByTestId("scene-line-1").textContent()).toContain("Odile");
    expect(await why.textContent()).toContain("Why Odile: addressed by name");
    await page.getByText(/prompt tokens \(\d+ evaluated\)/).waitFor();
    await s.shot("scenes-1-addressed");
    await page.getByRole("button", { name: "End the scene" }).click();
    await page.getByRole("button", { name: "Start a scene" }).waitFor();
    expect(s.errors).toEqual([]);
  });
});
