import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { importPack, parsePackText } from "../../../src/packs/importPack.ts";
import { createApiKey } from "../../../src/auth/apiKeys.ts";
import { chromiumAvailable, nav, signInThroughPage, startStudio, type Studio } from "./browser.ts";

// a real server with the tiny random-weight model and headless Chromium, on 2 shared cores
setDefaultTimeout(240_000);
const enabled = chromiumAvailable();
let s: Studio;
let projectId = "";
let server = "";
let mindId = "";

// Short lore: the tiny model's mostly-byte vocabulary makes every character a token, and its context is 2,048.
const PACK = `
project: { name: Recorded Tavern }
tags: [ { name: tavern } ]
minds:
  - { key: garrick, entityName: Garrick, personality: Cheerful innkeeper., knowledgeTags: [tavern] }
documents:
  - { key: menu, name: The Menu, tags: [tavern], content: "Ale, mutton stew and honey bread. Garrick brews a dark porter." }
`;

beforeAll(async () => {
  if (!enabled) return;
  s = await startStudio();
  const r = importPack(s.app.ctx, parsePackText(PACK, "tiny.yaml"));
  projectId = r.projectId;
  mindId = (r.ids as any).minds.garrick;
  server = createApiKey(s.app.ctx, { projectId, type: "server" }).key;
  await s.app.scheduler.trigger("indexer");
}, 120_000);
afterAll(async () => {
  await s?.close();
});

const say = async (playerId: string, text: string) => {
  const r = await fetch(`${s.base}/v1/npc/interact`, {
    method: "POST",
    headers: { authorization: `Bearer ${server}`, "content-type": "application/json" },
    body: JSON.stringify({ text, entityMindId: mindId, playerId }),
  });
  expect(r.status).toBe(200);
};

describe.skipIf(!enabled)("recording conversations in the Studio (Chromium)", () => {
  test("turn recording on in Settings; review the recorded conversations on the Lore tests page: accept one into the suite, reject another", async () => {
    const { page } = s;
    page.setDefaultTimeout(120_000);
    await signInThroughPage(s);
    await page.goto(`/#/p/${projectId}/overview`);
    await nav(s, "Settings & jobs");
    const form = page.getByRole("form", { name: "Recording" });
    await form.getByLabel("Record conversations").check();
    await form.getByLabel("Share of sessions recorded (0–1)").fill("1");
    await form.getByRole("button", { name: "Save recording" }).click();
    await page.getByText("Recording saved.").waitFor();
    const saved = await (await fetch(`${s.base}/admin/v1/projects/${projectId}/lore-tests/recording`, { headers: { authorization: `Bearer ${s.token}` } })).json();
    expect(saved).toEqual({ recordConversations: true, recordSampleRate: 1 });

    await say("player-one", "What is on the menu tonight?");
    await say("player-two", "Do you brew anything?");

    await nav(s, "Lore tests");
    await page.getByRole("heading", { name: "Lore tests" }).waitFor();
    const box = page.getByTestId("test-candidates");
    await box.getByText("Recorded conversations (2)").waitFor();
    const menu = box.getByTestId("test-candidate").filter({ hasText: "What is on the menu tonight?" });
    await menu.locator("summary").click();
    expect(await menu.textContent()).toContain("Lore in the prompt: The Menu");
    await s.shot("lore-tests-candidates");
    await menu.getByRole("button", { name: "Accept as a test" }).click();
    await box.getByText("Recorded conversations (1)").waitFor();
    const draft = await page.getByLabel("Suite").inputValue();
    expect(draft).toContain('say: "What is on the menu tonight?"');
    expect(draft).toContain('knowsFrom: ["The Menu"]');
    // The accepted case is appended to the draft (here below the page's starter case, whose keys are placeholders).
    await page.getByLabel("Suite").fill(`tests:\n${draft.slice(draft.indexOf('  - name: "Garrick:'))}`);
    await page.getByRole("button", { name: "Validate" }).click();
    await page.getByTestId("tests-valid").getByText("Valid: 1 case").waitFor();

    const other = box.getByTestId("test-candidate").first();
    await other.locator("summary").click();
    await other.getByRole("button", { name: "Reject" }).click();
    await box.getByText("Recorded conversations (0)").waitFor();
    expect(s.errors).toEqual([]);
  });
});
