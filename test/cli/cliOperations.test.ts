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
  const code = await runCli([...args, "--data-dir", dataDir, "--json"], { out: (l) => out.push(l), err: (l) => err.push(l) }, { LOREHOLD_DEFAULT_MONTHLY_CREDITS: "100" });
  return { code, json: out.length === 1 ? JSON.parse(out[0]) : undefined, err: err.join("\n") };
}

let pid = "";
beforeAll(async () => {
  pid = (await cli("project", "create", "--name", "Ops")).json.id;
});

describe("credits, settings and limits from the CLI", () => {
  test("credits show: the default plan from config", async () => {
    const r = await cli("credits", "show", "--project", pid);
    expect(r.json).toEqual({ monthlyAllotment: 100, allotmentRemaining: 100, topUp: 0, available: 100 });
  });
  test("credits grant adds top-up; credits plan caps this month's remaining", async () => {
    expect((await cli("credits", "grant", "--project", "Ops", "--credits", "25")).json).toEqual({ monthlyAllotment: 100, allotmentRemaining: 100, topUp: 25, available: 125 });
    expect((await cli("credits", "plan", "--project", pid, "--monthly", "40")).json).toEqual({ monthlyAllotment: 40, allotmentRemaining: 40, topUp: 25, available: 65 });
    expect((await cli("credits", "plan", "--project", pid, "--monthly", "500")).json).toMatchObject({ monthlyAllotment: 500, allotmentRemaining: 40 });
  });
  test("settings set parses KEY=VALUE with types", async () => {
    const r = await cli("settings", "set", "--project", pid, "maxSessionLength=8", "enhancedMemoryRetrieval=true", "projectName=Ops Renamed");
    expect(r.code).toBe(0);
    expect(r.json).toEqual({ projectName: "Ops Renamed", longTermMemoryEnabled: true, maxSessionLength: 8, maxSessionTokens: 50000, enhancedMemoryRetrieval: true, recordConversations: false, recordSampleRate: 0 });
  });
  test("limits set", async () => {
    expect((await cli("limits", "set", "--project", pid, "--per-player", "5")).json).toEqual({ perPlayerPerMinute: 5, perProjectPerMinute: 200 });
  });
  const bad: Array<[string, string[], number, string]> = [
    ["grant without --credits", ["credits", "grant", "--project", "x"], 2, "missing --credits"],
    ["grant of zero", ["credits", "grant", "--project", "Ops Renamed", "--credits", "0"], 1, "Invalid request"],
    ["settings with no assignment", ["settings", "set", "--project", "Ops Renamed"], 2, "give at least one KEY=VALUE"],
    ["settings not KEY=VALUE", ["settings", "set", "--project", "Ops Renamed", "maxSessionLength"], 2, "'maxSessionLength' is not KEY=VALUE"],
    ["settings unknown key", ["settings", "set", "--project", "Ops Renamed", "colour=red"], 1, "Invalid request"],
    ["settings out of range", ["settings", "set", "--project", "Ops Renamed", "maxSessionLength=0"], 1, "Invalid request"],
    ["limits with nothing", ["limits", "set", "--project", "Ops Renamed"], 2, "give --per-player and/or --per-project"],
    ["limits of zero", ["limits", "set", "--project", "Ops Renamed", "--per-project", "0"], 1, "Invalid request"],
    ["unknown project", ["credits", "show", "--project", "nope"], 1, "Project not found"],
  ];
  for (const [name, args, code, error] of bad) {
    test(`${name} → exit ${code}`, async () => {
      const r = await cli(...args);
      expect(r.code).toBe(code);
      expect(r.json.error).toBe(error);
    });
  }
});
