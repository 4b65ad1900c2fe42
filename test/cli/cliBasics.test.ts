import { afterAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "../../src/cli/runCli.ts";
import { tempDir } from "../support/testApp.ts";

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const dataDir = join(dir, "data");

/** Runs the CLI in process with --data-dir; returns exit code, stdout lines and stderr. */
async function cli(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli([...args, "--data-dir", dataDir], { out: (l) => out.push(l), err: (l) => err.push(l) }, {});
  return { code, out, err: err.join("\n"), json: out.length === 1 ? JSON.parse(out[0]) : undefined };
}

describe("CLI basics with --json print exactly one JSON object", () => {
  let projectId = "";
  let keyId = "";
  test("init creates a token; a second run keeps it and says so", async () => {
    const a = await cli("init", "--json");
    expect(a.code).toBe(0);
    expect(Object.keys(a.json)).toEqual(["adminToken"]);
    expect(a.json.adminToken).toMatch(/^lh_admin_[0-9A-Za-z]{40}$/);
    const b = await cli("init", "--json");
    expect(b.json).toEqual({ adminToken: a.json.adminToken, existing: true });
  });
  test("project create / list", async () => {
    const r = await cli("project", "create", "--name", "Thornhaven", "--json");
    expect(r.code).toBe(0);
    expect(Object.keys(r.json).sort()).toEqual(["id", "name", "teamId"]);
    expect(r.json.name).toBe("Thornhaven");
    projectId = r.json.id;
    const l = await cli("project", "list", "--json");
    expect(l.json.projects.map((p: any) => p.id)).toEqual([projectId]);
  });
  test("key create shows the key once; list never shows it; revoke", async () => {
    const r = await cli("key", "create", "--project", projectId, "--type", "server", "--name", "backend", "--json");
    expect(r.code).toBe(0);
    expect(Object.keys(r.json).sort()).toEqual(["id", "key", "projectId", "type"]);
    expect(r.json.key).toMatch(/^sk_server_[0-9A-Za-z]{43}$/);
    expect(r.json.type).toBe("server");
    keyId = r.json.id;
    const byName = await cli("key", "create", "--project", "Thornhaven", "--type", "editor", "--json");
    expect(byName.json.key).toMatch(/^sk_editor_/);
    const l = await cli("key", "list", "--project", projectId, "--json");
    expect(l.json.keys).toHaveLength(2);
    expect(JSON.stringify(l.json)).not.toContain(r.json.key);
    expect(l.json.keys[0]).toMatchObject({ id: keyId, type: "server", name: "backend", display: `sk_server_…${r.json.key.slice(-4)}`, revokedAt: null });
    const v = await cli("key", "revoke", keyId, "--json");
    expect(v.json).toEqual({ id: keyId, revoked: true });
    const l2 = await cli("key", "list", "--project", projectId, "--json");
    expect(l2.json.keys[0].revokedAt).toEqual(expect.any(String));
  });
  const bad: Array<[string, string[], number, string]> = [
    ["no command", [], 2, ""],
    ["unknown command", ["frobnicate", "--json"], 2, "unknown command 'frobnicate'"],
    ["project create without --name", ["project", "create", "--json"], 2, "missing --name"],
    ["key create with a bad type", ["key", "create", "--project", "x", "--type", "admin", "--json"], 2, "--type must be server or editor"],
    ["key create for an unknown project", ["key", "create", "--project", "proj_nope", "--type", "server", "--json"], 1, "Project not found"],
    ["key revoke without id", ["key", "revoke", "--json"], 2, "missing KEY_ID"],
    ["key revoke unknown id", ["key", "revoke", "key_nope", "--json"], 1, "API key not found"],
  ];
  for (const [name, args, code, message] of bad) {
    test(`${name} → exit ${code}`, async () => {
      const r = await cli(...args);
      expect(r.code).toBe(code);
      if (message) expect(r.json).toEqual({ error: message });
      if (code === 2) expect(r.err).toContain("Usage:");
    });
  }
});
