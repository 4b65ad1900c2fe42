import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { loadWorld } from "../../bench/support/qualityWorldRun.ts";
import { CINDERVALE } from "../../bench/worlds/cindervale.questions.ts";
import { readRateLimits } from "../../src/ratelimit/rateLimitSettings.ts";

// The quality bench runs on the test app, whose clock never moves: the per-minute window never frees a slot, so at
// the default limits (200 a project) a run of four seeds on one world (240 turns) had its last 40 answered 429, and
// they were scored as grounding misses. A world loaded for the bench must take every turn the run sends it.
describe("bench/quality: a loaded world takes a whole run's turns", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ embeddingModel: "hashing" }, { loadModel: false });
  });
  afterAll(async () => {
    await t.close();
  });

  test("each project of the held-out world admits 1000 turns of one player within one unmoving minute", () => {
    const w = loadWorld(t, CINDERVALE, join(import.meta.dir, "../.."));
    const projects = Object.keys(w.key);
    expect(projects.length).toBeGreaterThan(0);
    for (const projectId of projects) {
      const limits = readRateLimits(t.app.ctx, projectId);
      expect(() => {
        for (let i = 0; i < 1000; i++) t.app.limiter.hit(projectId, "bench-player", limits);
      }).not.toThrow();
    }
  });
});
