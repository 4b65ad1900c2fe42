import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "../../src/cli/runCli.ts";
import { tempDir } from "../support/testApp.ts";

const dir = tempDir();
const dataDir = join(dir, "data");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli([...args, "--data-dir", dataDir, "--json"], { out: (l) => out.push(l), err: (l) => err.push(l) }, {});
  return { code, json: out.length === 1 ? JSON.parse(out[0]) : undefined };
}

let pid = "";
beforeAll(async () => {
  pid = (await cli("project", "create", "--name", "Rec")).json.id;
});

describe("recording from the CLI, where project settings live", () => {
  test("settings set turns recording on with a sample rate, beside the other settings", async () => {
    const r = await cli("settings", "set", "--project", pid, "recordConversations=true", "recordSampleRate=0.25", "maxSessionLength=9");
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ maxSessionLength: 9, recordConversations: true, recordSampleRate: 0.25 });
  });

  test("a bad value refuses the whole command: nothing written, every problem named", async () => {
    const r = await cli("settings", "set", "--project", pid, "recordSampleRate=2", "maxSessionLength=12");
    expect(r.code).toBe(1);
    expect(r.json.error).toBe("Invalid request");
    const now = await cli("settings", "set", "--project", pid, "recordConversations=false");
    expect(now.json).toMatchObject({ maxSessionLength: 9, recordConversations: false, recordSampleRate: 0.25 });
  });
});
