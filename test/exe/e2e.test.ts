/**
 * The appliance, end to end: builds the REAL executable (src/main.ts) with the
 * build script's API, copies it to an empty folder with no node_modules
 * anywhere above it, and drives it as an operator would, with a bare
 * environment: init, project create, key create, import the demo world,
 * model list / model pull (from a local server), serve with the tiny GGUF, wait
 * for /readyz and for the demo documents to be indexed, a real
 * /v1/npc/interact and lore reads, then SIGTERM → exit 0.
 *
 * Slow (a ~380 MB build, ~10-60 s on 2 cores) and disk hungry (~800 MB in
 * $TMPDIR while it runs); LOREHOLD_SKIP_EXE_TEST=1 skips it, like build.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Subprocess } from "bun";
import { strToU8, zipSync } from "fflate";
import { buildExecutable } from "../../scripts/build/buildExecutable.ts";
import { writeTinyGguf } from "../support/tinyGguf.ts";
import { writeTinyOnnxModel } from "../support/tinyOnnx.ts";
import { startFileServer } from "../models/fileServer.ts";

const root = path.resolve(import.meta.dir, "../..");
const skip = process.env.LOREHOLD_SKIP_EXE_TEST === "1";

let work = "";
let exe = "";
let runDir = "";
let env: Record<string, string> = {};
const figures: Record<string, number | string> = {};

/** One CLI command of the executable. (Async: `model pull` talks to a server in this very process.) */
async function run(...args: string[]): Promise<{ out: string; err: string }> {
  const started = performance.now();
  const p = Bun.spawn([exe, ...args], { cwd: runDir, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  const ms = Math.round(performance.now() - started);
  if (code !== 0) throw new Error(`lorehold ${args.join(" ")} → exit ${code} (${ms} ms)\nstdout: ${out}\nstderr: ${err}`);
  figures[`${args.filter((a) => /^[a-z]+$/.test(a)).slice(0, 2).join(" ")} ms`] = ms;
  return { out, err };
}

/** A --json command: its one JSON line. */
async function lorehold(...args: string[]): Promise<any> {
  const { out } = await run(...args);
  return JSON.parse(out.trim().split("\n").at(-1)!);
}

async function freePort(): Promise<number> {
  const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
}

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | null | undefined | false>): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  let last: unknown = null;
  while (performance.now() < deadline) {
    try {
      const v = await probe();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await Bun.sleep(100);
  }
  throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${last})` : ""}`);
}

describe.skipIf(skip)("the lorehold executable, end to end from an empty folder", () => {
  beforeAll(async () => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), "lorehold-e2e-"));
    const started = performance.now();
    const build = await buildExecutable({ root, entry: "src/main.ts", outfile: path.join(work, "build", "lorehold") });
    figures.buildMs = Math.round(performance.now() - started);
    figures.exeMB = Math.round(build.bytes / 1024 / 1024);

    // An empty folder, nothing of the repo reachable: the executable, the demo pack copied beside it.
    runDir = path.join(work, "site");
    fs.mkdirSync(runDir);
    exe = path.join(work, "bin", "lorehold");
    fs.mkdirSync(path.dirname(exe));
    fs.copyFileSync(build.outfile, exe);
    fs.chmodSync(exe, 0o755);
    fs.rmSync(path.join(work, "build"), { recursive: true, force: true });
    fs.copyFileSync(path.join(root, "examples", "thornhaven.yaml"), path.join(work, "thornhaven.yaml"));
    for (const d of ["home", "tmp"]) fs.mkdirSync(path.join(work, d));
    env = { PATH: "/usr/bin:/bin", HOME: path.join(work, "home"), TMPDIR: path.join(work, "tmp") };
  }, 240_000);

  afterAll(() => {
    console.error(`e2e figures: ${JSON.stringify(figures)}`);
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  test("init, project, keys, import, model pull, serve, interact, lore read, SIGTERM → 0", async () => {
    for (let dir = path.dirname(exe); dir !== path.dirname(dir); dir = path.dirname(dir)) expect(fs.existsSync(path.join(dir, "node_modules"))).toBe(false);
    for (let dir = runDir; dir !== path.dirname(dir); dir = path.dirname(dir)) expect(fs.existsSync(path.join(dir, "node_modules"))).toBe(false);

    // --- the CLI, each command a fresh process (the first one extracts the natives) ---
    const init = await lorehold("init", "--json");
    figures.firstStartMs = figures["init ms"];
    expect(init.adminToken).toStartWith("lh_admin_");
    expect(fs.existsSync(path.join(runDir, "data"))).toBe(true);
    const project = await lorehold("project", "create", "--name", "Thornhaven", "--json");
    const serverKey = (await lorehold("key", "create", "--project", project.id, "--type", "server", "--json")).key;
    const editorKey = (await lorehold("key", "create", "--project", "Thornhaven", "--type", "editor", "--json")).key;
    const imported = await lorehold("import", path.join(work, "thornhaven.yaml"), "--project", project.id, "--json");
    expect(imported.projectId).toBe(project.id);
    const garrick = imported.ids.minds.garrick;
    const documentIds = Object.values(imported.ids.documents) as string[];
    expect(garrick).toStartWith("mind_");
    expect(documentIds.length).toBeGreaterThanOrEqual(10);

    // --- models: pulled from a local server into ./models (the executable's only network use) ---
    const modelFile = path.join(work, "tiny.gguf");
    writeTinyGguf(modelFile, { nCtx: 2048 });
    const files = startFileServer({ "/models/tiny.gguf": { body: new Uint8Array(fs.readFileSync(modelFile)) } });
    let pulled: { out: string; err: string };
    try {
      pulled = await run("model", "pull", `${files.url}/models/tiny.gguf`);
    } finally {
      files.stop();
    }
    expect(pulled.err).toContain("tiny.gguf |"); // cli-progress, bundled
    expect(pulled.err).toContain("100%");
    expect(pulled.out).toContain(`Downloaded ${path.join(runDir, "models", "tiny.gguf")}`);
    const listed = await lorehold("model", "list", "--json");
    const size = fs.statSync(modelFile).size;
    expect(listed.models).toEqual([{ name: "tiny.gguf", path: path.join(runDir, "models", "tiny.gguf"), kind: "gguf", sizeBytes: size, active: true }]);

    // --- serve ---
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const spawnedAt = performance.now();
    // An ONNX embedding model from here on: it runs in worker threads (one per --threads) bundled into the executable.
    writeTinyOnnxModel(path.join(runDir, "models", "embeddings", "tiny-bert"), { dims: 32 });
    const server: Subprocess<"ignore", "pipe", "pipe"> = Bun.spawn([exe, "serve", "--port", String(port), "--model", "tiny.gguf", "--threads", "2"], {
      cwd: runDir,
      env: { ...env, LOREHOLD_EMBEDDING_MODEL: "tiny-bert" },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const stderr = new Response(server.stderr).text(); // drained all along, so the pipe never fills
    const stdout = new Response(server.stdout).text();
    let exitCode: number | null = null;
    try {
      const ready = await until("/readyz 200", 60_000, async () => {
        if (server.exitCode !== null) throw new Error(`serve exited with ${server.exitCode}`);
        const r = await fetch(`${base}/readyz`);
        return r.status === 200 ? ((await r.json()) as any) : null;
      });
      figures.serveStartToReadyMs = Math.round(performance.now() - spawnedAt);
      expect(ready).toMatchObject({ ready: true, storage: true, model: { state: "loaded", path: path.join(runDir, "models", "tiny.gguf") } });
      // natives from the cache that `init` filled: this start found them intact
      expect(ready.native).toMatchObject({ source: "cache", extracted: false, extractReason: null });
      figures.servePrepareNativesMs = ready.native.prepareMs;

      const editor = { authorization: `Bearer ${editorKey}` };
      const indexedAt = performance.now();
      await until("every demo document COMPLETED", 90_000, async () => {
        const r = (await (await fetch(`${base}/v1/lore/documents?limit=100`, { headers: editor })).json()) as any;
        const statuses = r.documents.map((d: any) => d.status);
        if (statuses.includes("FAILED")) throw new Error(`a document failed to index: ${JSON.stringify(r.documents)}`);
        return statuses.length === documentIds.length && statuses.every((s: string) => s === "COMPLETED");
      });
      figures.indexDemoMs = Math.round(performance.now() - indexedAt);
      // the lore imported before is re-embedded by the ONNX model's threads in the background
      await until("the lore embedded by the ONNX model", 90_000, async () => /^onnx:tiny-bert\b/.test(((await (await fetch(`${base}/healthz`)).json()) as any).embedder));

      // a real reply from llama.cpp inside the executable
      const askedAt = performance.now();
      const res = await fetch(`${base}/v1/npc/interact`, {
        method: "POST",
        headers: { authorization: `Bearer ${serverKey}`, "content-type": "application/json", "x-request-id": "e2e-interact-1" },
        body: JSON.stringify({ text: "Any news from the road?", entityMindId: garrick, playerId: "e2e-player", context: { location: "Thornhaven" } }),
      });
      figures.interactMs = Math.round(performance.now() - askedAt);
      const reply = (await res.json()) as any;
      expect({ status: res.status, reply }).toMatchObject({ status: 200, reply: { success: true, character: "Garrick Thorne", response: expect.any(String) } });
      expect(reply.metadata.creditsUsed).toBeGreaterThan(0);
      expect(res.headers.get("x-request-id")).toBe("e2e-interact-1");

      // lore reads (Editor Key)
      const minds = (await (await fetch(`${base}/v1/lore/minds`, { headers: editor })).json()) as any;
      expect(minds.minds.map((m: any) => m.entityName)).toContain("Garrick Thorne");
      const history = imported.ids.documents["town-history"] as string;
      const doc = await fetch(`${base}/v1/lore/documents/${history}`, { headers: editor });
      expect(doc.status).toBe(200);
      const docBody = (await doc.json()) as any;
      expect(JSON.stringify(docBody)).toContain("Thornhaven");
      expect(JSON.stringify(docBody)).toContain("COMPLETED");

      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics).toContain('lorehold_http_requests_total{method="POST",route="/v1/npc/interact",status="200"} 1');

      // the Studio travels inside the executable (no studio/ folder, no bundler at run time)
      const page = await fetch(`${base}/`);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
      const script = /src="(\/studio\/assets\/main-[^"]+\.js)"/.exec(await page.text())?.[1];
      expect(script).toBeDefined();
      const asset = await fetch(`${base}${script}`);
      expect(asset.status).toBe(200);
      expect((await asset.text()).length).toBeGreaterThan(10_000);

      // a scan: the extraction thread is the executable's second entry point (scripts/build/buildExecutable.ts)
      const scannedAt = performance.now();
      const md = strToU8("# Wren the Ferrywoman\n\nWren ferries travellers across the Black River for two copper coins and a story she has not heard before.\n");
      const zip = zipSync({ "lore/wren.md": md });
      const json = { ...editor, "content-type": "application/json" };
      const submitted = (await (
        await fetch(`${base}/v1/scanner/submit-archive`, {
          method: "POST",
          headers: json,
          body: JSON.stringify({
            files: [{ filename: "wren.md", relativePath: "lore/wren.md", sizeBytes: md.length, contentHash: new Bun.CryptoHasher("sha256").update(md).digest("hex") }],
            totalSizeBytes: zip.length,
          }),
        })
      ).json()) as any;
      const upload = new URL(submitted.uploadUrl);
      const put = await fetch(`${base}${upload.pathname}${upload.search}`, { method: "PUT", headers: { "content-type": "application/zip" }, body: zip });
      expect(put.status).toBe(200);
      const confirmed = await fetch(`${base}/v1/scanner/submit-archive/confirm`, { method: "POST", headers: json, body: JSON.stringify({ jobId: submitted.jobId }) });
      expect(confirmed.status).toBe(200);
      const scanned = await until("the scan COMPLETED", 60_000, async () => {
        const j = (await (await fetch(`${base}/v1/scanner/jobs/${submitted.jobId}`, { headers: editor })).json()) as any;
        if (j.status === "FAILED") throw new Error(`the scan failed: ${JSON.stringify(j)}`);
        return j.status === "COMPLETED" ? j : null;
      });
      figures.scanMs = Math.round(performance.now() - scannedAt);
      expect(scanned.extractions.map((e: any) => e.title)).toContain("Wren the Ferrywoman");
    } finally {
      // --- graceful shutdown ---
      const killedAt = performance.now();
      server.kill("SIGTERM");
      exitCode = await Promise.race([server.exited, Bun.sleep(30_000).then(() => null)]);
      figures.shutdownMs = Math.round(performance.now() - killedAt);
      if (exitCode === null) server.kill("SIGKILL");
    }
    const log = (await stderr)
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l));
    expect(exitCode).toBe(0);
    expect(await stdout).toBe("");
    expect(log.filter((l) => l.level === "error")).toEqual([]);
    expect(log.find((l) => l.msg === "native libraries")).toMatchObject({ source: "cache", extracted: false });
    const readyLine = log.find((l) => l.msg === "ready");
    expect(readyLine).toMatchObject({ model: "loaded" });
    figures.serveStartupMs = readyLine.startupMs;
    figures.modelLoadMs = log.find((l) => l.msg === "model loaded")?.ms;
    expect(log.find((l) => l.msg === "request" && l.requestId === "e2e-interact-1")).toMatchObject({ status: 200, path: "/v1/npc/interact" });
    expect(log.find((l) => l.msg === "shutting down")).toMatchObject({ signal: "SIGTERM" });
  }, 240_000);
});
