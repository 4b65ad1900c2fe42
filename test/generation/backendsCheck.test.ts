import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "../../src/cli/runCli.ts";
import { tempDir } from "../support/testApp.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { llamaServerBinary, startLlamaServer, warnNoLlamaServer, type LlamaServer } from "../support/llamaServer.ts";

setDefaultTimeout(120_000);
const BIN = llamaServerBinary();
if (!BIN) warnNoLlamaServer("test/generation/backendsCheck.test.ts (lorehold backends check on a real llama-server)");
const maybe = BIN ? test : test.skip;

const dir = tempDir();
let server: LlamaServer | null = null;
beforeAll(async () => {
  if (BIN) server = await startLlamaServer({ binary: BIN, model: ensureTinyModel(undefined, { nCtx: 2048 }), parallel: 1, slotContext: 1024 });
}, 120_000);
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function check(env: Record<string, string>) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(["backends", "check", "--data-dir", join(dir, "data"), "--json"], { out: (l) => out.push(l), err: (l) => err.push(l) }, env);
  return { code, out, err: err.join("\n") };
}

maybe("a live llama-server: its model file, context size and a test completion; the apiKey is never printed", async () => {
  const r = await check({ LOREHOLD_BACKENDS: server!.url, LOREHOLD_BACKENDS_API_KEY: "sk-do-not-print" });
  expect(r.code).toBe(0);
  const [b] = JSON.parse(r.out[0]).backends;
  expect(b).toMatchObject({ backend: "backend-0", url: server!.url, kind: "llama-server", ok: true, healthy: true, contextSize: 1024, error: null });
  expect(b.model).toEndWith(".gguf");
  expect(b.completion.promptTokens).toBeGreaterThan(0);
  expect(typeof b.completion.text).toBe("string");
  expect(r.out.join("") + r.err).not.toContain("sk-do-not-print");
});

test("an unreachable backend: reported, exit 1", async () => {
  const r = await check({ LOREHOLD_BACKENDS: "http://127.0.0.1:9", LOREHOLD_BACKENDS_API_KEY: "sk-do-not-print" });
  expect(r.code).toBe(1);
  const [b] = JSON.parse(r.out[0]).backends;
  expect(b).toMatchObject({ ok: false, healthy: false, completion: null });
  expect(b.error).toBeTruthy();
  expect(JSON.parse(r.out[1])).toEqual({ error: "1 of 1 backends failed the check" });
  expect(r.out.join("")).not.toContain("sk-do-not-print");
});

test("no backends configured: usage error, exit 2", async () => {
  const r = await check({});
  expect(r.code).toBe(2);
  expect(r.err).toBe("Usage: lorehold backends check [--json]");
  expect(JSON.parse(r.out[0])).toEqual({ error: "no [[backends]] configured (lorehold.toml or LOREHOLD_BACKENDS)" });
});
