import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { App } from "../../src/app/App.ts";
import { createLogger } from "../../src/ops/logger.ts";
import { tempDir, testConfig } from "../support/testApp.ts";
import { buildWorld, type World } from "../support/world.ts";
import { ManualClock } from "../../src/core/clock.ts";

const lines: string[] = [];
let app: App;
let dir: string;
let w: World;

beforeAll(async () => {
  dir = tempDir("lorehold-logs-");
  const logger = createLogger("info", {}, (line) => lines.push(line));
  app = await App.create(testConfig(dir), { logger, loadModel: false, clock: new ManualClock(new Date()) });
  w = buildWorld(app.ctx as any);
});
afterAll(async () => {
  await app.stop().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
});

const logged = () => lines.map((l) => JSON.parse(l) as Record<string, any>);
const request = (path: string, headers: Record<string, string> = {}) => app.handle(new Request(`http://localhost${path}`, { headers }));

test("every log line is one JSON object with time, level and msg", async () => {
  await request("/healthz");
  await Bun.sleep(20);
  expect(lines.length).toBeGreaterThan(0);
  for (const entry of logged()) {
    expect(typeof entry.time).toBe("string");
    expect(Number.isNaN(Date.parse(entry.time))).toBe(false);
    expect(["debug", "info", "warn", "error"]).toContain(entry.level);
    expect(typeof entry.msg).toBe("string");
  }
});

test("the request log carries the caller's request id, which the response echoes", async () => {
  const res = await request("/v1/lore/tags", { authorization: `Bearer ${w.keys.editor}`, "x-request-id": "game-backend-42" });
  expect(res.status).toBe(200);
  expect(res.headers.get("x-request-id")).toBe("game-backend-42");
  await Bun.sleep(20);
  expect(logged().filter((l) => l.requestId === "game-backend-42")).toEqual([
    { time: expect.any(String), level: "info", msg: "request", requestId: "game-backend-42", method: "GET", path: "/v1/lore/tags", status: 200, ms: expect.any(Number) },
  ]);
});

test("without one, a fresh id is made, returned and logged — on errors too", async () => {
  const res = await request("/v1/lore/documents/doc_missing", { authorization: `Bearer ${w.keys.editor}` });
  expect(res.status).toBe(404);
  const id = res.headers.get("x-request-id")!;
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  await Bun.sleep(20);
  expect(logged().find((l) => l.requestId === id)).toMatchObject({ msg: "request", status: 404, path: "/v1/lore/documents/doc_missing" });
});

test("an unhandled error is logged with the request id; the wire gets no stack", async () => {
  app.db.close(); // storage gone: the next read throws inside a route
  const res = await request("/v1/lore/tags", { authorization: `Bearer ${w.keys.editor}`, "x-request-id": "broken-1" });
  expect(res.status).toBe(500);
  expect(await res.json()).toEqual({ error: "Internal server error" });
  await Bun.sleep(20);
  const mine = logged().filter((l) => l.requestId === "broken-1");
  expect(mine.find((l) => l.level === "error")).toMatchObject({ msg: "unhandled error", err: expect.stringContaining("closed database") });
  expect(mine.find((l) => l.msg === "request")).toMatchObject({ status: 500 });
});
