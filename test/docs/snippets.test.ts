import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadConfig } from "../../src/config/config.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { tempDir } from "../support/testApp.ts";
import { extractSnippets, manualPages, RUNNABLE_LANGS } from "./markdownSnippets.ts";

/*
 * Every fenced block of the manual marked `runnable` runs here, against a scratch server started the way a
 * reader starts one (`quickstart`: the demo world, its keys in data/demo-keys.json), so the docs cannot rot.
 * - sh: `sh -e` in the server's working directory (with the repository's examples/), with LOREHOLD_URL, ADMIN_TOKEN, SERVER_KEY, EDITOR_KEY,
 *   PROJECT_ID and MIND_ID set (the getting-started page shows how a reader sets them), `lorehold` on the PATH,
 *   and `curl` failing on any HTTP error status (a snippet that shows a 4xx says so with `|| true`).
 * - ts: run by Bun, with `@lorehold/client` resolving to sdk/typescript.
 * - yaml: a lore pack, imported with `lorehold import` into a project of its own.
 * - toml: a lorehold.toml, which the config loader must accept.
 * Generation runs on the suite's tiny random-weight model: the snippets check the calls, not the words.
 */
const root = resolve(import.meta.dir, "../..");
const snippets = manualPages(root).flatMap((p) => extractSnippets(root, p));
const dir = tempDir("lorehold-docs-");
const bin = join(dir, "bin");
const env: Record<string, string> = { PATH: `${bin}:${process.env.PATH ?? ""}`, HOME: dir, LOREHOLD_DATA_DIR: join(dir, "data"), LOREHOLD_LOG_LEVEL: "warn" };
let server: ReturnType<typeof Bun.spawn> | null = null;

function shim(name: string, body: string): void {
  writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
  chmodSync(join(bin, name), 0o755);
}

async function run(cmd: string[], cwd = dir): Promise<{ code: number; out: string }> {
  const p = Bun.spawn(cmd, { cwd, env, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const timer = setTimeout(() => p.kill(), 90_000);
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
  const code = await p.exited;
  clearTimeout(timer);
  return { code, out: out + err };
}

beforeAll(async () => {
  mkdirSync(bin, { recursive: true });
  // the snippets read the repository's examples as a reader in a clone does
  symlinkSync(join(root, "examples"), join(dir, "examples"));
  shim("lorehold", `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(root, "src/main.ts"))} "$@"`);
  shim("curl", `exec ${JSON.stringify(Bun.which("curl") ?? "/usr/bin/curl")} --fail-with-body "$@"`);
  // the SDK as a reader installs it: `import ... from "@lorehold/client"`
  const sdk = join(dir, "node_modules/@lorehold/client");
  mkdirSync(sdk, { recursive: true });
  writeFileSync(join(sdk, "package.json"), JSON.stringify({ name: "@lorehold/client", type: "module", main: "index.ts" }));
  writeFileSync(join(sdk, "index.ts"), `export * from ${JSON.stringify(join(root, "sdk/typescript/src/index.ts"))};\n`);
  const model = ensureTinyModel(undefined, { nCtx: 2048 });
  server = Bun.spawn([process.execPath, join(root, "src/main.ts"), "quickstart", "--no-pull", "--port", "0", "--model", model], {
    cwd: dir,
    env: { ...env, LOREHOLD_THREADS: "1", LOREHOLD_MAX_REPLY_TOKENS: "16", LOREHOLD_PARALLEL: "2" },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  let err = "";
  const reader = (server.stderr as ReadableStream<Uint8Array>).getReader();
  const deadline = Date.now() + 90_000;
  while (!err.includes("Press Ctrl+C") && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    err += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const keys = JSON.parse(readFileSync(join(dir, "data/demo-keys.json"), "utf8"));
  env.LOREHOLD_URL = /listening on (http:\/\/\S+)/.exec(err)![1];
  env.ADMIN_TOKEN = /Admin token: (\S+)/.exec(err)![1];
  env.SERVER_KEY = keys.serverKey;
  env.EDITOR_KEY = keys.editorKey;
  env.PROJECT_ID = keys.projectId;
  env.MIND_ID = /"entityMindId":"([^"]+)"/.exec(err)![1];
}, 120_000);

afterAll(async () => {
  server?.kill("SIGTERM");
  await server?.exited;
  rmSync(dir, { recursive: true, force: true });
});

describe("the manual's runnable snippets", () => {
  test("there are snippets of each kind to run", () => {
    for (const lang of RUNNABLE_LANGS) expect(snippets.some((s) => s.lang === lang)).toBe(true);
    expect(snippets.filter((s) => !(RUNNABLE_LANGS as readonly string[]).includes(s.lang))).toEqual([]);
  });

  for (const [i, s] of snippets.entries()) {
    test(`${s.file}:${s.line} (${s.lang})`, async () => {
      const file = join(dir, `snippet-${i}.${s.lang}`);
      writeFileSync(file, s.code);
      let r: { code: number; out: string };
      if (s.lang === "sh") r = await run(["sh", "-e", file]);
      else if (s.lang === "ts") r = await run([process.execPath, file]);
      else if (s.lang === "yaml") r = await run(["lorehold", "import", file, "--json"]);
      else {
        const cwd = join(dir, `toml-${i}`);
        mkdirSync(cwd, { recursive: true });
        writeFileSync(join(cwd, "lorehold.toml"), s.code);
        try {
          loadConfig({ cwd, env: {} });
          r = { code: 0, out: "" };
        } catch (e) {
          r = { code: 1, out: String(e) };
        }
      }
      if (r.code !== 0) console.error(`${s.file}:${s.line} exited ${r.code}:\n${r.out}`);
      expect(r.code).toBe(0);
    }, 120_000);
  }
});
