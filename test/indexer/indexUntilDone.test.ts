import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { createProject } from "../../src/projects/projectService.ts";
import { createDocument } from "../../src/lore/documents/writeDocuments.ts";
import { getDocument } from "../../src/lore/documents/readDocuments.ts";
import { indexingPending } from "../../src/lore/documents/documentStore.ts";
import { runIndexer } from "../../src/lore/indexer/indexerJob.ts";
import { indexUntilDone } from "../../src/lore/indexer/indexUntilDone.ts";
import { Scheduler } from "../../src/jobs/Scheduler.ts";
import { silentLogger } from "../../src/ops/logger.ts";

setDefaultTimeout(120_000);

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

// A scheduler that is never started (the lore-test scratch app's, a bench's) runs a job only when triggered. Its
// indexer here takes one document a tick: a tick that ended at its time budget with documents still waiting.
test("an app whose scheduler is not started indexes every pending document, tick after tick", async () => {
  const pid = createProject(t.app.ctx, { name: "Ticks" }).id;
  const ids = ["Weirs", "Sluice", "Tide bell"].map((name) => createDocument(t.app.ctx, pid, { name, content: `${name}: a page of the river's lore.`, tags: ["history"] }).id);
  const scheduler = new Scheduler(silentLogger);
  scheduler.register({ name: "indexer", schedule: "*/2 * * * * *", run: (signal) => runIndexer(t.app.ctx, signal, 1) });
  expect(await indexUntilDone((name) => scheduler.trigger(name))).toBe(3);
  expect(ids.map((id) => getDocument(t.app.ctx, pid, id).status)).toEqual(["COMPLETED", "COMPLETED", "COMPLETED"]);
  expect(indexingPending(t.app.db)).toBe(false);
  await scheduler.stop();
});
