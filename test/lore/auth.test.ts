import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { buildWorld, type World } from "../support/world.ts";

const EDITOR_ENDPOINTS = [
  "/v1/lore/minds",
  "/v1/lore/tags",
  "/v1/lore/locations",
  "/v1/lore/relationships",
  "/v1/lore/relationship-types",
  "/v1/lore/documents",
  "/v1/lore/documents/export",
  "/v1/lore/documents/doc_x",
  "/v1/lore/project-settings",
];

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await createTestApp();
  w = buildWorld(t.app.ctx as any);
});
afterAll(() => t.close());

describe("editor endpoints refuse anything but a live Editor Key with 401 Invalid authentication", () => {
  const jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl";
  const cases: Array<[string, () => Record<string, string>]> = [
    ["no Authorization header", () => ({})],
    ["empty bearer", () => ({ authorization: "Bearer " })],
    ["Basic scheme", () => ({ authorization: `Basic ${btoa("a:b")}` })],
    ["key without Bearer", () => ({ authorization: w.keys.editor })],
    ["JWT", () => ({ authorization: `Bearer ${jwt}` })],
    ["truncated editor key", () => ({ authorization: `Bearer ${w.keys.editor.slice(0, -1)}` })],
    ["well-formed unknown editor key", () => ({ authorization: `Bearer sk_editor_${"A".repeat(43)}` })],
    ["revoked editor key", () => ({ authorization: `Bearer ${w.keys.revokedEditor}` })],
    ["Server Key", () => ({ authorization: `Bearer ${w.keys.server}` })],
  ];
  for (const path of EDITOR_ENDPOINTS) {
    for (const [name, headers] of cases) {
      test(`${path} — ${name}`, async () => {
        const r = await t.call("GET", path, { headers: headers() });
        expect(r.status).toBe(401);
        expect(r.body).toEqual({ error: "Invalid authentication" });
      });
    }
  }
  test("auth is checked before parameters: a bad limit without a key is still 401", async () => {
    const r = await t.call("GET", "/v1/lore/documents?limit=9999");
    expect(r.status).toBe(401);
  });
  test("a valid Editor Key is accepted on every endpoint (lower-case bearer too)", async () => {
    for (const path of EDITOR_ENDPOINTS.filter((p) => !p.endsWith("doc_x"))) {
      const r = await t.call("GET", path, { headers: { authorization: `bearer ${w.keys.editor}` } });
      expect(r.status).toBe(200);
    }
  });
});

describe("wire format", () => {
  test("unknown routes are 404 JSON with a request id", async () => {
    const r = await t.call("GET", "/v1/nowhere");
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ error: "Not found" });
    expect(r.headers.get("content-type")).toContain("application/json");
    expect(r.headers.get("x-request-id")).toBeTruthy();
  });
  test("a caller's x-request-id is echoed", async () => {
    const r = await t.call("GET", "/v1/lore/tags", { key: w.keys.editor, headers: { "x-request-id": "req-123" } });
    expect(r.headers.get("x-request-id")).toBe("req-123");
  });
  test("/healthz answers", async () => {
    const r = await t.call("GET", "/healthz");
    expect(r.status).toBe(200);
    expect(r.body.status).toBe("ok");
  });
  test("swagger lists every lore route with its error responses", async () => {
    const r = await t.call("GET", "/swagger/json");
    expect(r.status).toBe(200);
    for (const p of ["/v1/lore/minds", "/v1/lore/documents/{documentId}", "/v1/lore/documents/export"]) {
      expect(r.body.paths[p]).toBeDefined();
      expect(Object.keys(r.body.paths[p].get.responses)).toEqual(expect.arrayContaining(["200", "400", "401"]));
    }
  });
});
