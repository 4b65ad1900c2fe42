import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { authenticateKey, createApiKey, listApiKeys, revokeApiKey } from "../../src/auth/apiKeys.ts";
import { createProject } from "../../src/projects/projectService.ts";
import { STUDIO_KEY_NAME, StudioKeys } from "../../src/studio/studioKeys.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";

let t: TestApp;
let projectId: string;
let other: string;
const ctx = () => t.app.ctx;
const studioRows = (p: string) => listApiKeys(ctx(), p).filter((k) => k.name === STUDIO_KEY_NAME.editor || k.name === STUDIO_KEY_NAME.server);

beforeAll(async () => {
  t = await createTestApp({}, { loadModel: false });
  projectId = createProject(ctx(), { name: "Saltmarsh" }).id;
  other = createProject(ctx(), { name: "Elsewhere" }).id;
});
afterAll(() => t.close());

describe("the Studio's own API keys across restarts", () => {
  test("ten restarts leave one live key per type and no revoked rows; earlier keys no longer authenticate", () => {
    const hand = createApiKey(ctx(), { projectId, type: "editor", name: "Game server (mine)" });
    // what the previous version left behind: a revoked Studio key per restart
    const legacy = createApiKey(ctx(), { projectId, type: "editor", name: STUDIO_KEY_NAME.editor });
    revokeApiKey(ctx(), legacy.id, projectId);
    const issued: string[] = [];
    for (let restart = 0; restart < 10; restart++) {
      const keys = new StudioKeys(ctx()); // a new server process
      const editor = keys.key(projectId, "editor");
      expect(keys.key(projectId, "editor")).toBe(editor); // reused within the process
      keys.key(projectId, "server");
      issued.push(editor);
    }
    const rows = studioRows(projectId);
    expect(rows.map((k) => [k.type, k.name, k.revokedAt]).sort()).toEqual([
      ["editor", STUDIO_KEY_NAME.editor, null],
      ["server", STUDIO_KEY_NAME.server, null],
    ]);
    expect(issued.slice(0, -1).map((k) => authenticateKey(ctx(), k))).toEqual(Array(9).fill(null));
    expect(authenticateKey(ctx(), issued.at(-1)!)?.projectId).toBe(projectId);
    // a person's own key, even an editor key, is never touched
    expect(listApiKeys(ctx(), projectId).find((k) => k.id === hand.id)?.revokedAt).toBeNull();
    expect(authenticateKey(ctx(), hand.key)?.keyId).toBe(hand.id);
  });

  test("a Studio key revoked by hand is deleted and replaced on the next call, in this project only", () => {
    const keys = new StudioKeys(ctx());
    const otherKey = keys.key(other, "editor");
    const first = keys.key(projectId, "editor");
    const row = studioRows(projectId).find((k) => k.type === "editor")!;
    revokeApiKey(ctx(), row.id, projectId);
    const second = keys.key(projectId, "editor");
    expect(second).not.toBe(first);
    const editors = studioRows(projectId).filter((k) => k.type === "editor");
    expect(editors.length).toBe(1);
    expect(editors[0].revokedAt).toBeNull();
    expect(editors[0].id).not.toBe(row.id);
    expect(authenticateKey(ctx(), otherKey)?.projectId).toBe(other);
  });
});
