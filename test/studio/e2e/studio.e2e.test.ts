import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { storeMemories } from "../../../src/npc/memory/storeMemories.ts";
import { chromiumAvailable, nav, startStudio, type Studio } from "./browser.ts";

setDefaultTimeout(120_000);
const enabled = chromiumAvailable();
let s: Studio;
let projectId = "";
let mindId = "";
let playerId = "";

beforeAll(async () => {
  // Replies long enough to watch them stream: the reply guard holds the last few tokens before the cap back to a
  // sentence end, so with a 16-token cap a random-weight sample may show only a handful of steps on some CPUs.
  if (enabled) s = await startStudio({ maxReplyTokens: 64 });
}, 120_000);
afterAll(async () => {
  await s?.close();
});

/** The scenarios run in order, one signed-in browser session, like a writer's afternoon. */
describe.skipIf(!enabled)("Lorehold Studio in Chromium", () => {
  test("sign-in: a wrong token is refused with a message; the admin token opens the Studio", async () => {
    const { page } = s;
    await page.goto("/");
    await page.getByLabel("Admin token").fill("lh_admin_not-the-token");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("alert").textContent()).resolves.toContain("Invalid authentication");
    await page.getByRole("alert").getByText("not this server's admin token").waitFor();
    await s.shot("01-signin-bad-token");
    await page.getByLabel("Admin token").fill(s.token);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Projects" }).waitFor();
    // the cookie is HttpOnly: no script can read it, and nothing is kept in storage
    const cookies = await s.context.cookies();
    const session = cookies.find((c) => c.name === "lorehold_studio")!;
    expect(session.httpOnly).toBe(true);
    expect(session.sameSite).toBe("Strict");
    // (browser-side code as strings: this file is type-checked without the DOM library)
    expect(await page.evaluate("document.cookie")).toBe("");
    expect(await page.evaluate("localStorage.length + sessionStorage.length")).toBe(0);
    await s.shot("02-signed-in");
  });

  test("create a project, a Server Key and an Editor Key", async () => {
    const { page } = s;
    await page.getByLabel("New project name").fill("Saltmarsh");
    await page.getByRole("button", { name: "Create project" }).click();
    await page.getByRole("heading", { name: "Saltmarsh" }).waitFor();
    projectId = /#\/p\/([^/?]+)/.exec(page.url())![1];
    await nav(s, "API keys");
    await page.getByLabel("Name (optional)").fill("game backend");
    await page.getByRole("button", { name: "Create key" }).click();
    const shown = page.getByTestId("new-key");
    await expect(shown.textContent()).resolves.toContain("shown only once");
    const key = await shown.locator("code").textContent();
    expect(key).toMatch(/^sk_server_[0-9A-Za-z]{43}$/);
    await shown.getByRole("button", { name: "Copy" }).click();
    await shown.getByRole("button", { name: "Copied" }).waitFor();
    expect(await page.evaluate("navigator.clipboard.readText()")).toBe(key!);
    await s.shot("03-key-created");
    await shown.getByRole("button", { name: "Done" }).click();
    await page.getByLabel("Type").selectOption("editor");
    await page.getByRole("button", { name: "Create key" }).click();
    expect(await page.getByTestId("new-key").locator("code").textContent()).toMatch(/^sk_editor_/);
    const rows = page.locator("table.list tbody tr");
    await rows.nth(1).waitFor();
    expect(await rows.count()).toBe(2);
    await expect(rows.first().textContent()).resolves.toContain("game backend");
  });

  test("author a tag, a document (watched to COMPLETED) and a mind that sees it", async () => {
    const { page } = s;
    await nav(s, "Tags, places, relations");
    await page.getByLabel("Tag name").fill("harbour");
    await page.getByRole("button", { name: "Add tag" }).click();
    await page.locator("ul.plain").getByText("harbour").waitFor();
    await page.getByLabel("Location name").fill("Salt Quay");
    await page.getByRole("button", { name: "Add location" }).click();
    await page.getByText("Salt Quay").waitFor();
    await page.getByRole("button", { name: "Edit location Salt Quay" }).click();
    const edit = page.getByRole("form", { name: "Edit location Salt Quay" });
    await edit.getByLabel("Description").fill("Where the pilots wait for the tide");
    await edit.getByRole("button", { name: "Save" }).click();
    await page.getByText("Where the pilots wait for the tide · 0 minds").waitFor();

    await nav(s, "Lore");
    await page.getByRole("link", { name: "New document" }).click();
    await page.getByLabel("Name").fill("The Salt Quay");
    await page.getByLabel("Content (Markdown)").fill("# The Salt Quay\n\nPilots wait on the **Salt Quay** for the tide.\n\nThe harbour bell rings at dusk.\n\n<img src='data:,' onerror='alert(1)'>");
    await page.getByRole("tab", { name: "Preview" }).click();
    const preview = page.getByTestId("md-preview");
    await preview.locator("strong", { hasText: "Salt Quay" }).waitFor();
    // raw HTML in lore is shown as text, never run or even parsed as markup
    await preview.getByText("<img src='data:,' onerror='alert(1)'>").waitFor();
    expect(await preview.locator("img").count()).toBe(0);
    await page.getByLabel("harbour", { exact: true }).check();
    await page.getByLabel("Location").selectOption({ label: "Salt Quay" });
    await page.getByRole("button", { name: "Create document" }).click();
    const status = page.getByTestId("doc-status");
    await status.getByText("COMPLETED").waitFor({ timeout: 60_000 });
    await page.getByRole("heading", { name: /^Chunks \(\d+\)$/ }).waitFor();
    await s.shot("04-document-completed");

    await nav(s, "Minds");
    await page.getByRole("link", { name: "New mind" }).click();
    await page.getByLabel("Name").fill("Mara");
    await page.getByLabel("Personality").fill("A quiet harbour pilot who notices everything.");
    await page.getByLabel("Role").fill("Pilot");
    await page.getByLabel("Hints").fill("Mentions the tide\nNever hurries");
    await page.getByLabel("harbour", { exact: true }).check();
    await page.getByRole("button", { name: "Create mind" }).click();
    await expect(page.getByTestId("computed-filter").textContent()).resolves.toContain("1 documents");
    await page.waitForURL(/minds\/(?!new)[^/?]+$/);
    mindId = /minds\/([^/?]+)/.exec(page.url())![1];
    await s.shot("05-mind");
  });

  test("import a pack with an error, see the problem by path; fix it, dry run, import", async () => {
    const { page } = s;
    await nav(s, "Lore packs");
    await page.getByLabel("Pack text (YAML or JSON)").fill("minds:\n  - key: oskar\n    personality: A ferryman.\n");
    await page.getByRole("button", { name: "Check (dry run)" }).click();
    const problems = page.getByTestId("pack-problems");
    await problems.getByText("Invalid lore pack").waitFor();
    await expect(problems.textContent()).resolves.toMatch(/minds\[0\]\.entityName/);
    await s.shot("06-pack-problem");
    await page.getByLabel("Pack text (YAML or JSON)").fill("minds:\n  - key: oskar\n    entityName: Oskar\n    personality: A ferryman.\n    knowledgeTags: [harbour]\n");
    await page.getByRole("button", { name: "Check (dry run)" }).click();
    await expect(page.getByTestId("pack-plan").textContent()).resolves.toContain("oskar");
    await page.getByRole("button", { name: "Import" }).click();
    await expect(page.getByTestId("pack-imported").textContent()).resolves.toContain("1 minds");
  });

  test("playground: the reply streams token by token beside its trace (lore, prompt, timing, credits)", async () => {
    const { page } = s;
    await page.goto(`/#/p/${projectId}/playground?mind=${mindId}`);
    await page.getByLabel("Mind").selectOption(mindId);
    playerId = await page.getByLabel("Player id").inputValue();
    await page.getByLabel("Your line").fill("What happens on the Salt Quay at dusk?");
    // The browser may read several SSE events in one network read and render them once, so how many steps the page
    // shows depends on the machine's timing. The page's fetch is wrapped to hand the stream on one event per read,
    // a few ms apart (what a slow link does), and the page must then show each step the server streamed.
    await page.evaluate(`
      window.__texts = [];
      window.__streamed = [];
      const realFetch = window.fetch;
      window.fetch = async (...args) => {
        const res = await realFetch(...args);
        if (!String(args[0]).includes("/playground") || !res.body) return res;
        const reader = res.body.getReader();
        const decoder = new TextDecoder();
        const encoder = new TextEncoder();
        let buf = "";
        let reply = "";
        const body = new ReadableStream({
          async pull(controller) {
            for (;;) {
              const i = buf.indexOf("\\n\\n");
              if (i >= 0) {
                const block = buf.slice(0, i + 2);
                buf = buf.slice(i + 2);
                if (block.startsWith("event: token")) {
                  const data = block.split("\\n").find((l) => l.startsWith("data: "));
                  reply += JSON.parse(data.slice(6)).text;
                  if (window.__streamed.at(-1) !== reply) window.__streamed.push(reply);
                }
                await new Promise((r) => setTimeout(r, 15));
                controller.enqueue(encoder.encode(block));
                return;
              }
              const { value, done } = await reader.read();
              if (done) {
                if (buf) controller.enqueue(encoder.encode(buf));
                controller.close();
                return;
              }
              buf += decoder.decode(value, { stream: true });
            }
          },
        });
        return new Response(body, { status: res.status, headers: res.headers });
      };
      new MutationObserver(() => {
        const el = document.querySelector('[data-testid="reply-0"]');
        if (el && window.__texts.at(-1) !== el.textContent) window.__texts.push(el.textContent);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    `);
    await page.getByRole("button", { name: "Send" }).click();
    const trace = page.getByTestId("trace-0");
    await trace.getByText("The Salt Quay #").first().waitFor();
    await page.getByTestId("stats-0").waitFor({ timeout: 90_000 });
    const stats = (await page.getByTestId("stats-0").textContent())!;
    const replyTokens = Number(/Reply tokens(\d+)/.exec(stats)![1]);
    const streamed = (await page.evaluate("window.__streamed")) as string[];
    const texts = (await page.evaluate("window.__texts")) as string[];
    // the server sent the reply in several token events (a sampled reply of a few tokens cannot show this)
    if (replyTokens >= 8) expect(streamed.length).toBeGreaterThan(3);
    // the page showed each streamed step as it came
    const growing = texts.filter((x) => x.length > "Mara".length);
    expect(growing.length).toBeGreaterThanOrEqual(Math.min(4, streamed.filter((x) => x.length > 0).length));
    expect(Number(await page.getByTestId("credits-0").textContent())).toBeGreaterThan(0);
    await expect(page.getByTestId("stats-0").textContent()).resolves.toMatch(/First token\d+ ms/);
    expect((await page.getByTestId("reply-0").textContent())!.length).toBeGreaterThan("Mara".length);
    await trace.getByText("The exact prompt").click();
    await expect(trace.locator("pre").first().textContent()).resolves.toContain("Mara");
    await s.shot("07-playground");
  });

  test("who knows what: the matrix, and a leak attempt that retrieves nothing it must not", async () => {
    const { page } = s;
    // a secret outside Mara's tags
    await nav(s, "Tags, places, relations");
    await page.getByLabel("Tag name").fill("smugglers");
    await page.getByRole("button", { name: "Add tag" }).click();
    await page.locator("ul.plain").getByText("smugglers").waitFor();
    await nav(s, "Lore");
    await page.getByRole("link", { name: "New document" }).click();
    await page.getByLabel("Name").fill("The Smugglers' Tunnel");
    await page.getByLabel("Content (Markdown)").fill("A tunnel runs from the Salt Quay cellar to the old lighthouse. The smugglers move brandy through it at dusk.");
    await page.getByLabel("smugglers", { exact: true }).check();
    await page.getByRole("button", { name: "Create document" }).click();
    await page.getByTestId("doc-status").getByText("COMPLETED").waitFor({ timeout: 60_000 });
    await nav(s, "Who knows what");
    await page.getByRole("table", { name: "Minds by knowledge tags" }).waitFor();
    await s.shot("08a-matrix");
    await page.getByRole("combobox", { name: /^Mind\b/ }).selectOption({ label: "Mara" });
    await page.getByLabel("A document it must not know").selectOption({ label: "The Smugglers' Tunnel" });
    await page.getByRole("button", { name: "Ask about it" }).click();
    await expect(page.getByTestId("leak-result").textContent()).resolves.toContain("No chunk of “The Smugglers' Tunnel” reached Mara's prompt.");
    await s.shot("08-who-knows-what");
  });

  test("a player's memories and sessions: found, then erased after confirmation", async () => {
    const { page } = s;
    await storeMemories(s.app.ctx, { projectId, mindId, playerId, drafts: [{ text: "The player asked about dusk on the quay", importance: 6, topics: ["quay"] }] });
    await nav(s, "Players");
    await page.getByLabel("Player id").fill(playerId);
    await page.getByRole("button", { name: "Find" }).click();
    await expect(page.getByTestId("player-data").textContent()).resolves.toContain("1 memories, 1 sessions");
    await page.getByText("The player asked about dusk on the quay").waitFor();
    await s.shot("11-player");
    await page.getByRole("button", { name: "Erase everything" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Erase player" }).click();
    await expect(page.getByTestId("erased").textContent()).resolves.toContain("Erased 1 memories and 1 sessions");
    await page.getByText("Nothing is kept about this player.").waitFor();
  });

  test("usage: balance, ledger and charts of the playground's interaction", async () => {
    const { page } = s;
    await nav(s, "Usage & credits");
    const charts = page.getByTestId("usage-charts");
    await charts.locator(".uplot").first().waitFor();
    expect(await charts.locator(".uplot canvas").count()).toBe(4);
    await expect(page.getByText(/Tokens and latency cover \d+ interactions/).textContent()).resolves.toMatch(/cover [1-9]\d* interactions/);
    await page.locator("table.list").getByText("interaction").first().waitFor();
    await s.shot("12-usage");
    await nav(s, "Settings & jobs");
    await page.getByRole("row", { name: /indexer/ }).getByRole("button", { name: "Run now" }).click();
    await page.getByText("Migrations").waitFor();
    await s.shot("13-settings");
  });

  test("sign out ends the session; no console errors on the way", async () => {
    const { page } = s;
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("Admin token").waitFor();
    const r = await page.evaluate(`fetch("/admin/v1/projects").then((x) => x.status)`);
    expect(r).toBe(401);
    // expected failed loads: the wrong token (401), the pack with an error (400), the signed-out probe (401)
    const unexpected = s.errors.filter((e) => !/status of 40[01] /.test(e));
    if (unexpected.length) console.error(unexpected);
    expect(unexpected).toEqual([]);
  });
});
