import { afterAll, expect, test } from "bun:test";
import { job, LORE, runWorker, scanFixture, submitAndUpload } from "./scanSupport.ts";

const f = await scanFixture();
afterAll(() => f.close());

test("smoke", async () => {
  const { jobId, submit } = await submitAndUpload(f, [
    { path: "docs/lore.md", data: LORE.md },
    { path: "notes.txt", data: LORE.txt },
  ]);
  console.log(submit);
  console.log(await runWorker(f));
  const j = await job(f, jobId);
  console.log(JSON.stringify(j, null, 1));
  expect(j.body.status).toBe("COMPLETED");
});
