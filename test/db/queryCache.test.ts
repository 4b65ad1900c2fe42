import { Database, type Statement } from "bun:sqlite";
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { buildWorld, type World } from "../support/world.ts";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import { QUERY_CACHE_SIZE } from "../../src/db/openDatabase.ts";

// bun:sqlite keeps 20 statements prepared by default, least recently used first out; a preview runs more distinct
// statements than that, always in the same order, so each was prepared again on every request. The server's
// connection keeps QUERY_CACHE_SIZE: a request seen before prepares nothing, and what it answers is unchanged.
setDefaultTimeout(60_000);

let t: TestApp;
let w: World;
let admin: string;

beforeAll(async () => {
  t = await createTestApp({ contextSize: 2048, maxReplyTokens: 64 });
  w = buildWorld(t.app.ctx as never, "Thornhaven", { index: "none" });
  await t.app.scheduler.trigger("indexer");
  admin = ensureAdminToken(t.app.db).adminToken;
});
afterAll(() => t.close());

const preview = (playerId: string) =>
  t.call("POST", `/admin/v1/projects/${w.projectId}/interact-preview`, {
    key: admin,
    body: { text: "What is on the menu at the tavern tonight?", entityMindId: w.minds.garrick, playerId, memory: { retrieve: true } },
  });

/** The statement `db.query` handed out for each SQL text while `run` ran (the last one of each). */
async function statementsOf(run: () => Promise<unknown>): Promise<Map<string, Statement>> {
  const db = t.app.db;
  const seen = new Map<string, Statement>();
  const query = Database.prototype.query;
  // an own property shadows the class's method for this connection only, for the length of the call
  Object.defineProperty(db, "query", { configurable: true, value: (sql: string) => (seen.set(sql, query.call(db, sql)), seen.get(sql)) });
  try {
    await run();
  } finally {
    delete (db as unknown as Record<string, unknown>).query;
  }
  return seen;
}

test("the server's connection keeps more statements than a preview runs", async () => {
  expect(Database.MAX_QUERY_CACHE_SIZE).toBeGreaterThanOrEqual(QUERY_CACHE_SIZE);
  expect((await preview("p-warm")).status).toBe(200);
  const first = await statementsOf(() => preview("p-one"));
  // more than bun:sqlite's default of 20: at that size these requests evicted their own statements
  expect(first.size).toBeGreaterThan(20);
  const again = await statementsOf(() => preview("p-two"));
  const prepared = [...again].filter(([sql, stmt]) => first.get(sql) !== undefined && first.get(sql) !== stmt).map(([sql]) => sql);
  expect(prepared).toEqual([]);
});

test("a preview answers the same bytes with the statements prepared anew each time as with them kept", async () => {
  const db = t.app.db;
  const kept = Database.MAX_QUERY_CACHE_SIZE;
  const bodies: string[] = [];
  try {
    for (const size of [20, kept, 20, kept]) {
      Database.MAX_QUERY_CACHE_SIZE = size;
      db.clearQueryCache();
      const res = await preview("p-same");
      expect(res.status).toBe(200);
      bodies.push(JSON.stringify(res.body));
    }
  } finally {
    Database.MAX_QUERY_CACHE_SIZE = kept;
  }
  expect(new Set(bodies).size).toBe(1);
});
