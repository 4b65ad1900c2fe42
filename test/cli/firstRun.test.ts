import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, copyFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createHash } from "node:crypto";
import { ensureChatModel, RECOMMENDED_CHAT_MODEL } from "../../src/cli/commands/firstRunModel.ts";
import { loadConfig } from "../../src/config/config.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { tempDir } from "../support/testApp.ts";
import { startFileServer } from "../models/fileServer.ts";

// `npm start` with no chat model: the offer, its refusals, and a real pull from a local HTTP server
// (never the internet) followed by a server that answers.
const TINY = ensureTinyModel(undefined, { nCtx: 2048 });
const body = new Uint8Array(readFileSync(TINY));
const sha = createHash("sha256").update(body).digest("hex");
let server: ReturnType<typeof startFileServer>;
let base = "";
const root = resolve(import.meta.dir, "../..");

beforeAll(() => {
  server = startFileServer({ "/models/npc-tiny.gguf": { body, etag: sha } });
  base = server.url;
});
afterAll(() => server?.stop());

function setup(): { dir: string; config: ReturnType<typeof loadConfig>; lines: string[]; io: { out(l: string): void; err(l: string): void } } {
  const dir = tempDir("lorehold-firstrun-");
  const config = loadConfig({ cwd: dir, env: {}, flags: { dataDir: join(dir, "data"), modelsDir: join(dir, "models") } });
  const lines: string[] = [];
  return { dir, config, lines, io: { out: (l) => lines.push(l), err: (l) => lines.push(l) } };
}
const ggufs = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith(".gguf")) : []);

/** The advice a first run without a model prints: a headline, then one line per way to get replies. */
function expectAdvice(lines: string[], modelsDir: string): void {
  expect(lines).toHaveLength(5);
  const options = lines.slice(1, 4);
  expect(options.every((l) => l.startsWith("  - "))).toBe(true);
  expect(options[0]).toContain(`lorehold model pull ${RECOMMENDED_CHAT_MODEL.uri}`);
  expect(options[1]).toMatch(/on a machine with internet, then copy the \.gguf file into /);
  expect(options[1]).toContain(modelsDir);
  expect(options[2]).toContain("LOREHOLD_GENERATION=remote LOREHOLD_BACKENDS=http://");
  expect(lines[4]).toContain("docs/models-and-performance.md");
}

describe("ensureChatModel", () => {
  const env = () => ({ LOREHOLD_FIRST_RUN_MODEL: `${base}/models/npc-tiny.gguf`, LOREHOLD_FIRST_RUN_MODEL_SHA256: sha });
  const never = async () => {
    throw new Error("must not ask");
  };

  test("recommends the README's model", () => {
    expect(readFileSync(join(root, "README.md"), "utf8")).toContain(RECOMMENDED_CHAT_MODEL.uri);
  });

  const skips: [string, Partial<Parameters<typeof ensureChatModel>[2]>, Record<string, string>][] = [
    ["--no-pull", { pull: "no", interactive: true }, {}],
    ["LOREHOLD_NO_PULL=1", { pull: "ask", interactive: true }, { LOREHOLD_NO_PULL: "1" }],
    ["LOREHOLD_NO_PULL=1 beats --pull", { pull: "yes", interactive: true }, { LOREHOLD_NO_PULL: "1" }],
    ["a non-interactive terminal", { pull: "ask", interactive: false }, {}],
  ];
  for (const [name, opts, extraEnv] of skips) {
    test(`${name}: no offer, no request, the advice on adding a model`, async () => {
      const s = setup();
      const before = server.log.length;
      const r = await ensureChatModel(s.config, s.io, { interactive: false, ...opts, env: { ...env(), ...extraEnv }, ask: never });
      expect(r).toBe("skipped");
      expect(server.log.length).toBe(before);
      expectAdvice(s.lines, s.config.modelsDir);
      rmSync(s.dir, { recursive: true, force: true });
    });
  }

  test("remote generation: no offer, no request, nothing printed", async () => {
    const s = setup();
    const config = { ...s.config, generation: "remote" as const, backends: [] };
    const before = server.log.length;
    expect(await ensureChatModel(config, s.io, { pull: "yes", interactive: true, env: env(), ask: never })).toBe("remote");
    expect(server.log.length).toBe(before);
    expect(s.lines).toEqual([]);
    expect(ggufs(s.config.modelsDir)).toEqual([]);
  });

  test("a model already there: nothing to do", async () => {
    const s = setup();
    mkdirSync(s.config.modelsDir, { recursive: true });
    copyFileSync(TINY, join(s.config.modelsDir, "mine.gguf"));
    expect(await ensureChatModel(s.config, s.io, { pull: "yes", interactive: true, env: env(), ask: never })).toBe("present");
    expect(s.lines).toEqual([]);
  });

  test("offline (nothing listens): the advice, nothing written", async () => {
    const s = setup();
    const dead = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = dead.port;
    dead.stop(true);
    const r = await ensureChatModel(s.config, s.io, { pull: "ask", interactive: true, env: { LOREHOLD_FIRST_RUN_MODEL: `http://127.0.0.1:${port}/x.gguf` }, ask: never });
    expect(r).toBe("offline");
    expect(s.lines[0]).toMatch(/cannot be reached \(offline\?\)/);
    expectAdvice(s.lines, s.config.modelsDir);
    expect(ggufs(s.config.modelsDir)).toEqual([]);
  });

  test("declined: nothing downloaded", async () => {
    const s = setup();
    const questions: string[] = [];
    const r = await ensureChatModel(s.config, s.io, { pull: "ask", interactive: true, env: env(), ask: async (q) => (questions.push(q), "n") });
    expect(r).toBe("declined");
    expect(questions).toHaveLength(1);
    expect(questions[0]).toMatch(/Download .* into .* now\? \[Y\/n\]/);
    expect(ggufs(s.config.modelsDir)).toEqual([]);
  });

  test("accepted (Enter): the checksummed pull puts the model in modelsDir", async () => {
    const s = setup();
    const r = await ensureChatModel(s.config, s.io, { pull: "ask", interactive: true, env: env(), ask: async () => "" });
    expect(r).toBe("pulled");
    expect(ggufs(s.config.modelsDir)).toEqual(["npc-tiny.gguf"]);
    expect(createHash("sha256").update(readFileSync(join(s.config.modelsDir, "npc-tiny.gguf"))).digest("hex")).toBe(sha);
    expect(s.lines.at(-1)).toMatch(/^Downloaded .*npc-tiny\.gguf \(sha256 [0-9a-f]{64}\); loading it\.$/);
  });

  test("a wrong checksum: failed, no model file left behind", async () => {
    const s = setup();
    const r = await ensureChatModel(s.config, s.io, { pull: "yes", interactive: false, env: { ...env(), LOREHOLD_FIRST_RUN_MODEL_SHA256: "0".repeat(64) }, ask: never });
    expect(r).toBe("failed");
    expect(ggufs(s.config.modelsDir)).toEqual([]);
  });
});

describe("npm start on an empty machine, end to end", () => {
  test("quickstart --pull downloads the model, loads it, and the demo NPC answers", async () => {
    const dir = tempDir("lorehold-firstrun-e2e-");
    const p = Bun.spawn([process.execPath, join(root, "src/main.ts"), "quickstart", "--pull", "--port", "0", "--data-dir", join(dir, "data"), "--models-dir", join(dir, "models")], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", HOME: dir, LOREHOLD_FIRST_RUN_MODEL: `${base}/models/npc-tiny.gguf`, LOREHOLD_FIRST_RUN_MODEL_SHA256: sha, LOREHOLD_THREADS: "2", LOREHOLD_MAX_REPLY_TOKENS: "8", LOREHOLD_LOG_LEVEL: "warn" },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    let err = "";
    const reader = p.stderr.getReader();
    const decoder = new TextDecoder();
    const deadline = Date.now() + 90_000;
    try {
      while (!err.includes("Press Ctrl+C") && Date.now() < deadline) {
        const { value, done } = await reader.read();
        if (done) break;
        err += decoder.decode(value);
      }
      expect(err).toContain("Downloaded ");
      expect(err).not.toContain("No chat model is loaded");
      const url = /listening on (http:\/\/[^\s]+)/.exec(err)![1];
      const key = /Server Key: (\S+)/.exec(err)![1];
      const mind = /"entityMindId":"([^"]+)"/.exec(err)![1];
      const res = await fetch(`${url}/v1/npc/interact`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ text: "Any news from the road?", entityMindId: mind, playerId: "first-run" }),
      });
      // the terminal already showed one real turn of the demo world, before "Press Ctrl+C"
      expect(err).toMatch(/  You: Any news from the road\?\n  [^\n:]+: /);
      expect(res.status).toBe(200);
      const reply = (await res.json()) as { success: boolean; response: string };
      expect(reply.success).toBe(true);
      expect(typeof reply.response).toBe("string");
    } finally {
      p.kill("SIGTERM");
      await p.exited;
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  test("quickstart offline with no model: the advice, one line per way out, and a server that says 503", async () => {
    const dir = tempDir("lorehold-firstrun-offline-");
    const p = Bun.spawn([process.execPath, join(root, "src/main.ts"), "quickstart", "--port", "0", "--data-dir", join(dir, "data"), "--models-dir", join(dir, "models")], {
      cwd: dir,
      // stdin is no terminal: nothing is offered, nothing is fetched (as on a machine without the internet)
      env: { PATH: process.env.PATH ?? "", HOME: dir, LOREHOLD_THREADS: "1", LOREHOLD_LOG_LEVEL: "silent" },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    let err = "";
    const reader = p.stderr.getReader();
    const decoder = new TextDecoder();
    const deadline = Date.now() + 60_000;
    try {
      while (!err.includes("Press Ctrl+C") && Date.now() < deadline) {
        const { value, done } = await reader.read();
        if (done) break;
        err += decoder.decode(value);
      }
      const lines = err.split("\n");
      const first = lines.findIndex((l) => l.startsWith("No chat model in "));
      expect(first).toBeGreaterThanOrEqual(0);
      expectAdvice(lines.slice(first, first + 5), join(dir, "models"));
      expect(err).toContain("No chat model is loaded");
      expect(err).not.toContain("  You: ");
      const url = /listening on (http:\/\/[^\s]+)/.exec(err)![1];
      const key = /Server Key: (\S+)/.exec(err)![1];
      const mind = /"entityMindId":"([^"]+)"/.exec(err)![1];
      const res = await fetch(`${url}/v1/npc/interact`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ text: "Any news from the road?", entityMindId: mind, playerId: "first-run" }),
      });
      expect(res.status).toBe(503);
    } finally {
      p.kill("SIGTERM");
      await p.exited;
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
