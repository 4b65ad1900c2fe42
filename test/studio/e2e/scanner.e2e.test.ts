import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createProject } from "../../../src/projects/projectService.ts";
import { createTag } from "../../../src/lore/tags/writeTags.ts";
import { createDocument } from "../../../src/lore/documents/writeDocuments.ts";
import { createMind } from "../../../src/lore/minds/writeMinds.ts";
import { tempDir } from "../../support/testApp.ts";
import { chromiumAvailable, nav, signInThroughPage, startStudio, type Studio } from "./browser.ts";

setDefaultTimeout(120_000);
const enabled = chromiumAvailable();
let s: Studio;
let projectId = "";

// This server has no chat model: the scanner's extraction stays heuristic (fast and
// deterministic; a random-weight model refining it would take minutes), and the
// playground must say so while still showing the preview trace.
beforeAll(async () => {
  if (!enabled) return;
  s = await startStudio({ model: false });
  const ctx = s.app.ctx;
  projectId = createProject(ctx, { name: "Saltmarsh" }).id;
  createTag(ctx, projectId, { name: "harbour" });
  createDocument(ctx, projectId, { name: "The Salt Quay", content: "Pilots wait on the Salt Quay for the tide.\n\nThe harbour bell rings at dusk.", tags: ["harbour"] });
  createMind(ctx, projectId, { entityName: "Mara", personality: "A quiet harbour pilot.", knowledgeTags: ["harbour"] });
  await s.app.scheduler.trigger("indexer");
  await signInThroughPage(s);
  await s.page.goto(`/#/p/${projectId}/overview`);
  await s.page.getByRole("heading", { name: "Saltmarsh" }).waitFor();
}, 120_000);
afterAll(async () => {
  await s?.close();
});

describe.skipIf(!enabled)("Lorehold Studio in Chromium, no model loaded", () => {
  test("scan a small folder: manifest and estimate, upload, progress, review, edit, commit", async () => {
    const { page } = s;
    const folder = join(tempDir("studio-scan-"), "gamefiles");
    mkdirSync(join(folder, "lore"), { recursive: true });
    writeFileSync(join(folder, "lore/lighthouse.md"), "# The Old Lighthouse\n\nThe old lighthouse above the Salt Quay has been dark for ten winters; the harbour pilots say a keeper still walks its stair.\n");
    writeFileSync(join(folder, "lore/bell.md"), "# The Harbour Bell\n\nThe harbour bell of Saltmarsh rings at dusk so that every boat on the marsh knows the tide is turning.\n");
    writeFileSync(join(folder, "items.json"), JSON.stringify([{ name: "Pilot's Lantern", description: "A brass lantern every harbour pilot carries on the night tide." }]));
    await nav(s, "Scanner");
    await page.getByTestId("folder-input").setInputFiles(folder);
    await expect(page.getByTestId("scan-manifest").textContent()).resolves.toContain("3 files");
    await page.getByTestId("scan-estimate").waitFor();
    await page.getByRole("button", { name: "Compare with the previous scan" }).click();
    await expect(page.getByTestId("rescan-diff").textContent()).resolves.toMatch(/Added: [^·]*lore\/lighthouse\.md/);
    await s.shot("09-scan-manifest");
    await page.getByRole("button", { name: "Submit, upload and confirm" }).click();
    await page.getByTestId("job-status").waitFor();
    await s.shot("10a-scan-job");
    await page.getByTestId("job-status").getByText("COMPLETED").waitFor({ timeout: 90_000 });
    const items = page.getByTestId("extraction");
    await items.first().waitFor();
    expect(await items.count()).toBe(3);
    const lantern = items.filter({ hasText: "Pilot's Lantern" });
    await lantern.getByRole("button", { name: "Edit" }).click();
    const editor = page.getByRole("form", { name: "Edit extraction" });
    await editor.getByLabel("Title").fill("The Pilot's Brass Lantern");
    await editor.getByLabel("Tags (comma separated)").fill("harbour");
    await editor.getByRole("button", { name: "Save extraction" }).click();
    await items.filter({ hasText: "The Pilot's Brass Lantern" }).waitFor();
    await page.getByRole("button", { name: "Select all shown" }).click();
    await page.getByRole("button", { name: "Commit 3 selected" }).click();
    await expect(page.getByTestId("commit-result").textContent()).resolves.toContain("Committed 3 new document(s)");
    await s.shot("10-scan-review-committed");
    await nav(s, "Lore");
    await page.getByRole("link", { name: "The Pilot's Brass Lantern" }).waitFor();
  });

  test("playground without a model: it says so, and still shows the preview trace", async () => {
    const { page } = s;
    await nav(s, "Playground");
    await page.getByTestId("no-model").waitFor();
    await page.getByLabel("Your line").fill("What rings at dusk?");
    await page.getByRole("button", { name: "Send" }).click();
    const trace = page.getByTestId("trace-0");
    await trace.getByText("The Salt Quay #").first().waitFor();
    await expect(page.getByRole("alert").last().textContent()).resolves.toContain("No chat model is loaded");
    await s.shot("14-playground-no-model");
    expect(s.errors).toEqual([]);
  });
});
