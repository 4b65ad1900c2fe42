import { afterAll, beforeAll, expect, test } from "bun:test";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import { LAST_USED_RESOLUTION_MS } from "../../src/auth/apiKeys.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { buildWorld, type World } from "../support/world.ts";

let t: TestApp;
let w: World;
let admin: string;
beforeAll(async () => {
  t = await createTestApp();
  w = buildWorld(t.app.ctx as any);
  admin = ensureAdminToken(t.app.db).adminToken;
});
afterAll(() => t.close());

const editorKey = async () => {
  const r = await t.call("GET", `/admin/v1/projects/${w.projectId}/keys`, { key: admin });
  expect(r.status).toBe(200);
  return (r.body.keys as { type: string; revokedAt: string | null; lastUsedAt: string | null }[]).find((k) => k.type === "editor" && !k.revokedAt)!;
};

test("lastUsedAt: null until the key is used, then written at most once per resolution window", async () => {
  expect((await editorKey()).lastUsedAt).toBeNull();
  const first = t.clock.now().toISOString();
  expect((await t.call("GET", "/v1/lore/tags", { key: w.keys.editor })).status).toBe(200);
  expect((await editorKey()).lastUsedAt).toBe(first);

  t.clock.advance(LAST_USED_RESOLUTION_MS - 1);
  expect((await t.call("GET", "/v1/lore/tags", { key: w.keys.editor })).status).toBe(200);
  expect((await editorKey()).lastUsedAt).toBe(first);

  t.clock.advance(1);
  const later = t.clock.now().toISOString();
  expect((await t.call("GET", "/v1/lore/tags", { key: w.keys.editor })).status).toBe(200);
  expect((await editorKey()).lastUsedAt).toBe(later);
});

test("a refused key is not marked used", async () => {
  expect((await t.call("GET", "/v1/lore/tags", { key: w.keys.revokedEditor })).status).toBe(401);
  const r = await t.call("GET", `/admin/v1/projects/${w.projectId}/keys`, { key: admin });
  const revoked = (r.body.keys as { type: string; revokedAt: string | null; lastUsedAt: string | null }[]).filter((k) => k.revokedAt);
  expect(revoked.length).toBeGreaterThan(0);
  for (const k of revoked) expect(k.lastUsedAt).toBeNull();
});
