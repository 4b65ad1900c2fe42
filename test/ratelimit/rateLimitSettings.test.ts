import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock } from "../../src/core/clock.ts";
import { ApiError } from "../../src/core/errors.ts";
import { openDatabase } from "../../src/db/openDatabase.ts";
import { createProject } from "../../src/projects/projectService.ts";
import { RateLimiter } from "../../src/ratelimit/RateLimiter.ts";
import { readRateLimits, setRateLimits } from "../../src/ratelimit/rateLimitSettings.ts";

const dir = mkdtempSync(join(tmpdir(), "lorehold-ratelimit-"));
const path = join(dir, "lorehold.db");
const clock = new ManualClock();
const server = { db: openDatabase(path), clock };
const cli = { db: openDatabase(path), clock }; // a second connection, as the CLI would open
afterAll(() => {
  server.db.close();
  cli.db.close();
  rmSync(dir, { recursive: true, force: true });
});

function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error("expected an ApiError");
}

test("a new project has the defaults 60 / 200", () => {
  const p = createProject(server, { name: "defaults" });
  expect(readRateLimits(server, p.id)).toEqual({ perPlayerPerMinute: 60, perProjectPerMinute: 200 });
  // A project without a rate_limits row (older data) reads as the defaults too.
  server.db.query("DELETE FROM rate_limits WHERE project_id = ?").run(p.id);
  expect(readRateLimits(server, p.id)).toEqual({ perPlayerPerMinute: 60, perProjectPerMinute: 200 });
  expect(setRateLimits(server, p.id, { perPlayerPerMinute: 7 })).toEqual({ perPlayerPerMinute: 7, perProjectPerMinute: 200 });
  expect(apiError(() => readRateLimits(server, "proj_nope")).toBody()).toEqual({ error: "Project not found" });
  expect(apiError(() => setRateLimits(server, "proj_nope", { perPlayerPerMinute: 5 })).status).toBe(404);
});

test("a change through another connection applies to the server's next request", () => {
  const p = createProject(server, { name: "live" });
  const rl = new RateLimiter(clock);
  for (let i = 0; i < 3; i++) rl.hit(p.id, "alice", readRateLimits(server, p.id));
  expect(setRateLimits(cli, p.id, { perPlayerPerMinute: 3 })).toEqual({ perPlayerPerMinute: 3, perProjectPerMinute: 200 });
  expect(apiError(() => rl.hit(p.id, "alice", readRateLimits(server, p.id))).status).toBe(429);
  setRateLimits(cli, p.id, { perPlayerPerMinute: 4, perProjectPerMinute: 1000 });
  expect(() => rl.hit(p.id, "alice", readRateLimits(server, p.id))).not.toThrow();
  expect(readRateLimits(server, p.id)).toEqual({ perPlayerPerMinute: 4, perProjectPerMinute: 1000 });
});

test("validation: integers 1..100000, every problem listed, nothing written", () => {
  const p = createProject(server, { name: "validation" });
  const cases: Array<[Record<string, unknown>, string[]]> = [
    [{ perPlayerPerMinute: 0 }, ["perPlayerPerMinute: must be an integer from 1 to 100000"]],
    [{ perProjectPerMinute: 100_001 }, ["perProjectPerMinute: must be an integer from 1 to 100000"]],
    [{ perPlayerPerMinute: 2.5 }, ["perPlayerPerMinute: must be an integer from 1 to 100000"]],
    [{ perPlayerPerMinute: "10" }, ["perPlayerPerMinute: must be an integer from 1 to 100000"]],
    [{ perPlayerPerMinute: -1, perProjectPerMinute: Number.NaN }, [
      "perPlayerPerMinute: must be an integer from 1 to 100000",
      "perProjectPerMinute: must be an integer from 1 to 100000",
    ]],
    [{ perMinute: 5 }, ["perMinute: unknown field"]],
  ];
  for (const [patch, details] of cases) {
    const e = apiError(() => setRateLimits(server, p.id, patch as never));
    expect(e.status).toBe(400);
    expect(e.toBody()).toEqual({ error: "Invalid request", details });
  }
  expect(readRateLimits(server, p.id)).toEqual({ perPlayerPerMinute: 60, perProjectPerMinute: 200 });
  expect(setRateLimits(server, p.id, { perPlayerPerMinute: 1, perProjectPerMinute: 100_000 })).toEqual({ perPlayerPerMinute: 1, perProjectPerMinute: 100_000 });
  expect(setRateLimits(server, p.id, {})).toEqual({ perPlayerPerMinute: 1, perProjectPerMinute: 100_000 });
});
