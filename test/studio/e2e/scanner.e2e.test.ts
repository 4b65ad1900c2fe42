import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createProject } from "../../../src/projects/projectService.ts";
import { createTag } from "../../../src/lore/tags/writeTags.ts";
import { createDocument } from "../../../src/lore/documents/writeDocuments.ts";
import { createMind } from "../../../src/lore/minds/writeMinds.ts";
import { readMinds } from "../../../src/lore/minds/readMinds.ts";
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
  createTag(ctx, projectId, { name: "lighthouse" });
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
    await page.getByRole("tab", { name: "One by one" }).click();
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

  test("review by group: open a group, reject a folder (kept after a reload), accept a group and a kind, apply a knowledge suggestion", async () => {
    const { page } = s;
    const folder = join(tempDir("studio-groups-"), "saltmarsh");
    for (const d of ["lore/characters", "lore/places", "data", "dialogue", "notes", "addons/quest_tool", "game/tl/french"]) mkdirSync(join(folder, d), { recursive: true });
    writeFileSync(join(folder, "lore/characters/mara.md"), "# Mara\n\nMara has guided boats through the Harbour channels of Saltmarsh for thirty years and never lost a hull.\n");
    writeFileSync(join(folder, "data/characters.json"), JSON.stringify([{ name: "Mara", description: "The oldest pilot of the Harbour; she keeps the tide tables in her head." }]));
    writeFileSync(join(folder, "lore/places/quay.md"), "# The Salt Quay\n\nThe Salt Quay is where the pilots wait for the tide, under the dark Lighthouse.\n");
    writeFileSync(join(folder, "dialogue/quay.yarn"), "title: Quay\n---\nMara: The Lighthouse has been dark for ten winters.\nBosun: Then the Harbour needs its pilots more than ever.\nMara: Keep the lanterns lit.\n===\n");
    writeFileSync(join(folder, "notes/todo-art.md"), "# Art backlog\n\nRedraw the quay tiles and the boat sprites before the demo build goes out.\n");
    writeFileSync(join(folder, "notes/sound-ideas.md"), "# Sound ideas\n\nGulls, creaking ropes and a distant bell for the harbour ambience loop.\n");
    writeFileSync(join(folder, "game/script.rpy"), 'define m = Character("Mara")\n\nlabel harbour_night:\n    m "The Lighthouse has been dark for ten winters."\n    return\n');
    writeFileSync(join(folder, "game/tl/french/script.rpy"), 'translate french harbour_night_1:\n    m "Le phare est éteint depuis dix hivers."\n');
    writeFileSync(join(folder, "CHANGELOG.md"), "# Changelog\n\n## 0.2\n- New quay tiles.\n");
    writeFileSync(join(folder, "addons/quest_tool/plugin.md"), "# Quest tool\n\nAn editor plugin for quest graphs.\n");
    await nav(s, "Scanner");
    await page.getByTestId("folder-input").setInputFiles(folder);
    await page.getByTestId("scan-estimate").waitFor();
    await page.getByRole("button", { name: "Submit, upload and confirm" }).click();
    await page.getByTestId("job-status").getByText("COMPLETED").waitFor({ timeout: 90_000 });
    const groups = page.getByTestId("groups").getByTestId("group");
    const mara = groups.filter({ has: page.getByText("Mara", { exact: true }) });
    await mara.waitFor();
    // the page updates after each action: wait for the line, don't read it once
    const shows = (testId: string, text: string | RegExp) => page.getByTestId(testId).filter({ hasText: text }).first().waitFor();
    await shows("review-totals", /^7 open · 0 accepted · 0 rejected — 7 extractions in 6 groups/);
    // one entity from two files is one group; opened, its extractions
    await mara.getByRole("button", { name: "Open Mara" }).click();
    await mara.getByTestId("extraction").nth(1).waitFor();
    await expect(mara.getByTestId("extraction").count()).resolves.toBe(2);
    const quay = groups.filter({ has: page.getByText("Quay", { exact: true }) });
    await expect(quay.textContent()).resolves.toContain("speakers: Mara, Bosun");
    await quay.getByRole("button", { name: "Open Quay" }).click();
    await quay.getByTestId("speakers").waitFor();
    await expect(quay.getByTestId("speakers").textContent()).resolves.toBe("Speakers: Mara, Bosun");
    await quay.getByTestId("reasons").waitFor();
    // a Ren'Py scene with its French translation attached as a variant, not a second candidate
    const night = groups.filter({ has: page.getByText("harbour_night", { exact: true }) });
    await expect(night.textContent()).resolves.toContain("translations: fr");
    await night.getByRole("button", { name: "Open harbour_night" }).click();
    await shows("variants", "Translations: frgame/tl/french/script.rpy");
    await s.shot("11a-scan-review-groups-open");
    // skipped content, with the line that includes it
    const skipped = page.getByTestId("skipped-summary");
    await expect(skipped.textContent()).resolves.toContain("include: engine");
    await expect(skipped.textContent()).resolves.toContain("include: translations");
    // reject a whole folder: its groups leave the open list, and the rejection survives a reload
    const bulk = page.getByRole("region", { name: "Accept or reject at once" });
    await bulk.getByLabel("A whole folder").selectOption("notes");
    await bulk.getByRole("button", { name: "Reject folder" }).click();
    await shows("review-totals", /^5 open · 0 accepted · 2 rejected/);
    await expect(groups.filter({ hasText: "Art backlog" }).count()).resolves.toBe(0);
    await page.reload();
    await page.getByTestId("rejected").getByText("notes").waitFor();
    await shows("review-totals", /^5 open · 0 accepted · 2 rejected/);
    // accept a whole group, then a whole kind
    await groups.filter({ has: page.getByText("Mara", { exact: true }) }).getByRole("button", { name: "Accept" }).click();
    await shows("group-result", 'Accepted "Mara": 2 document(s)');
    await bulk.getByLabel("A whole kind").selectOption("location");
    await bulk.getByRole("button", { name: "Accept kind" }).click();
    await shows("group-result", "Accepted kind location: 1 document(s)");
    await shows("review-totals", /^2 open · 3 accepted · 2 rejected/);
    await s.shot("11b-scan-review-groups-accepted");
    // a rejection restored: its groups are open again
    await page.getByRole("button", { name: "Restore folder notes" }).click();
    await shows("review-totals", /^4 open · 3 accepted · 0 rejected/);
    await groups.filter({ hasText: "Art backlog" }).waitFor();
    // what Mara says and is told: give her Entity Mind the tag she lacks, in one click
    const suggestion = page.getByTestId("suggestion").filter({ hasText: "Mara" });
    await suggestion.getByRole("button", { name: "Add 1 tag(s) to Mara" }).click();
    await shows("suggestion-applied", "Mara now knows lighthouse.");
    await suggestion.getByText("knows them all").waitFor();
    expect(readMinds(s.app.ctx, projectId).find((m) => m.entityName === "Mara")!.knowledgeTags.sort()).toEqual(["harbour", "lighthouse"]);
    // a character without a mind opens the editor prefilled
    await page.getByTestId("suggestion").filter({ hasText: "Bosun" }).getByRole("link", { name: "Create a mind for Bosun" }).click();
    await page.getByRole("heading", { name: "New mind" }).waitFor();
    await expect(page.getByLabel("Name", { exact: true }).inputValue()).resolves.toBe("Bosun");
    await expect(page.locator(".chip.on").allTextContents()).resolves.toEqual(["harbour", "lighthouse"]);
    expect(s.errors).toEqual([]);
  });

  test("playground without a model: it says so, and still shows the preview trace", async () => {
    const { page } = s;
    await nav(s, "Playground");
    await page.getByTestId("no-model").waitFor();
    // the same ways out as the terminal's first run
    await expect(page.getByTestId("no-model").textContent()).resolves.toContain("lorehold model pull hf:");
    await page.getByLabel("Your line").fill("What rings at dusk?");
    await page.getByRole("button", { name: "Send" }).click();
    const trace = page.getByTestId("trace-0");
    await trace.getByText("The Salt Quay #").first().waitFor();
    await expect(page.getByRole("alert").last().textContent()).resolves.toContain("No chat model is loaded");
    await s.shot("14-playground-no-model");
    expect(s.errors).toEqual([]);
  });
});
