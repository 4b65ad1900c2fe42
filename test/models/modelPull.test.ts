import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { tempDir } from "../support/testApp.ts";
import { downloadModel } from "../../src/models/downloadModel.ts";
import { resolveModelUri } from "../../src/models/modelUri.ts";
import { startFileServer } from "./fileServer.ts";
import { cli } from "./cli.ts";

/** 3 MB that start like a GGUF file: what a model looks like to the downloader. */
function fakeModel(seed: number, size = 3 * 1024 * 1024): Uint8Array {
  const b = new Uint8Array(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    b[i] = x >>> 24;
  }
  b.set(new TextEncoder().encode("GGUF"), 0);
  return b;
}
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

const MODEL = fakeModel(1);
const OTHER = fakeModel(2);
const MB = 1024 * 1024;

let dir = "";
let n = 0;
/** a fresh, empty modelsDir per test */
let models = "";
let server: ReturnType<typeof startFileServer>;
const pull = (...args: string[]) => cli("model", "pull", ...args, "--models-dir", models);

beforeAll(() => {
  dir = tempDir("lorehold-model-pull-");
});
afterEach(() => server?.stop());
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function serve(files: Parameters<typeof startFileServer>[0], repos?: Parameters<typeof startFileServer>[1]) {
  models = join(dir, `models-${++n}`);
  server = startFileServer(files, repos);
  return server;
}

describe("model pull", () => {
  test("downloads into modelsDir with a progress bar on stderr; --json prints one object and no bar", async () => {
    const s = serve({ "/files/tiny-chat.gguf": { body: MODEL } });
    const r = await pull(`${s.url}/files/tiny-chat.gguf`);
    expect(r.code).toBe(0);
    expect(readFileSync(join(models, "tiny-chat.gguf")).equals(Buffer.from(MODEL))).toBe(true);
    // cli-progress, non-TTY: one line per second and a last one at 100 %
    const bar = r.err.filter((l) => l.startsWith("tiny-chat.gguf |"));
    expect(bar.length).toBeGreaterThanOrEqual(1);
    expect(bar.at(-1)).toContain("100%");
    expect(bar.at(-1)).toContain("3.00 MB / 3.00 MB");
    expect(r.out.join("\n")).toContain(`sha256 ${sha(MODEL)}`);
    expect(r.out.join("\n")).toContain("size verified");

    rmSync(join(models, "tiny-chat.gguf"));
    const j = await pull(`${s.url}/files/tiny-chat.gguf`, "--json", "--name", "renamed.gguf");
    expect(j.code).toBe(0);
    expect(j.err).toEqual([]);
    expect(j.json).toEqual({
      path: join(models, "renamed.gguf"),
      url: `${s.url}/files/tiny-chat.gguf`,
      sizeBytes: MODEL.length,
      sha256: sha(MODEL),
      verified: "size",
      resumedFrom: 0,
      attempts: 1,
      alreadyPresent: false,
    });
    expect(readdirSync(models).sort()).toEqual(["renamed.gguf"]);

    // a second pull of a file that is there downloads nothing
    const again = await pull(`${s.url}/files/tiny-chat.gguf`, "--json", "--name", "renamed.gguf");
    expect(again.json).toMatchObject({ alreadyPresent: true, sha256: sha(MODEL), attempts: 0 });
  });

  test("progress is reported from start to the full size", async () => {
    const s = serve({ "/m.gguf": { body: MODEL } });
    models = join(dir, "progress");
    const seen: Array<[number, number | null]> = [];
    await downloadModel({ url: `${s.url}/m.gguf`, dir: models, fileName: "m.gguf", onProgress: (p) => seen.push([p.downloaded, p.total]) });
    expect(seen[0]).toEqual([0, MODEL.length]);
    expect(seen.at(-1)).toEqual([MODEL.length, MODEL.length]);
    expect(seen.length).toBeGreaterThan(2);
    for (let i = 1; i < seen.length; i++) expect(seen[i][0]).toBeGreaterThanOrEqual(seen[i - 1][0]);
  });

  test("a dropped connection is resumed with Range, not restarted", async () => {
    const s = serve({ "/m.gguf": { body: MODEL, etag: "v1", dropAfter: { bytes: 1 * MB, times: 1 } } });
    const r = await downloadModel({ url: `${s.url}/m.gguf`, dir: models, fileName: "m.gguf", retryDelayMs: 10 });
    expect(r).toMatchObject({ attempts: 2, sizeBytes: MODEL.length, sha256: sha(MODEL), verified: "size" });
    // what reached the disk before the drop (the client may lose the last buffered bytes of a broken stream)
    expect(r.resumedFrom).toBeGreaterThan(0);
    expect(r.resumedFrom).toBeLessThanOrEqual(1 * MB);
    expect(s.log.map((l) => [l.range, l.ifRange])).toEqual([
      [null, null],
      [`bytes=${r.resumedFrom}-`, '"v1"'],
    ]);
    expect(s.bytesSent).toBe(1 * MB + MODEL.length - r.resumedFrom); // the first MB is not sent twice
    expect(readFileSync(r.path).equals(Buffer.from(MODEL))).toBe(true);
    expect(readdirSync(models)).toEqual(["m.gguf"]);
  });

  test("an interrupted pull leaves a .partial (not a model) that the next pull resumes", async () => {
    const s = serve({ "/m.gguf": { body: MODEL, dropAfter: { bytes: 2 * MB, times: 1 } } });
    const first = await pull(`${s.url}/m.gguf`, "--retries", "0", "--json");
    expect(first.code).toBe(1);
    const have = Number(/interrupted at (\d+) of/.exec(first.json.error)?.[1]);
    expect(have).toBeGreaterThan(0);
    expect(have).toBeLessThanOrEqual(2 * MB);
    expect(first.json.error).toContain(`download of m.gguf interrupted at ${have} of ${MODEL.length} bytes`);
    expect(first.json.error).toContain("run the same command again to resume");
    expect(existsSync(join(models, "m.gguf"))).toBe(false);
    const listed = await cli("model", "list", "--models-dir", models, "--json");
    expect(listed.json.models).toEqual([]);
    expect(listed.json.incomplete).toEqual([{ name: "m.gguf", sizeBytes: have }]);

    const second = await pull(`${s.url}/m.gguf`, "--json");
    expect(second.code).toBe(0);
    expect(second.json).toMatchObject({ resumedFrom: have, attempts: 1, sha256: sha(MODEL) });
    expect(s.log.at(-1)!.range).toBe(`bytes=${have}-`);
    expect(readdirSync(models)).toEqual(["m.gguf"]);
  });

  test("a remote file that changed since the interruption is downloaded again from 0 (If-Range)", async () => {
    const files = { "/m.gguf": { body: MODEL, etag: "v1", dropAfter: { bytes: 1 * MB, times: 1 } } };
    const s = serve(files);
    expect((await pull(`${s.url}/m.gguf`, "--retries", "0", "--json")).code).toBe(1);
    files["/m.gguf"] = { body: OTHER, etag: "v2", dropAfter: { bytes: 0, times: 0 } }; // the file was replaced upstream
    const r = await pull(`${s.url}/m.gguf`, "--json");
    expect(s.log.at(-1)).toMatchObject({ range: expect.stringMatching(/^bytes=\d+-$/), ifRange: '"v1"' });
    expect(r.json).toMatchObject({ resumedFrom: 0, sha256: sha(OTHER) }); // not the old first MB spliced onto the new file
  });

  test("a server that ignores Range gets the whole file again, written from the start", async () => {
    const s = serve({ "/m.gguf": { body: MODEL, ignoreRange: true, dropAfter: { bytes: 1 * MB, times: 1 } } });
    const r = await downloadModel({ url: `${s.url}/m.gguf`, dir: models, fileName: "m.gguf", retryDelayMs: 10 });
    expect(r).toMatchObject({ resumedFrom: 0, attempts: 2, sha256: sha(MODEL) });
    expect(readFileSync(r.path).equals(Buffer.from(MODEL))).toBe(true);
  });

  test("a wrong --sha256: exit 1, a clear error, nothing left behind", async () => {
    const s = serve({ "/m.gguf": { body: MODEL } });
    const wrong = sha(OTHER);
    const r = await pull(`${s.url}/m.gguf`, "--sha256", wrong, "--json");
    expect(r.code).toBe(1);
    expect(r.json.error).toBe(`checksum mismatch for m.gguf: expected sha256 ${wrong}, got ${sha(MODEL)}; the download was deleted`);
    expect(readdirSync(models)).toEqual([]);

    const ok = await pull(`${s.url}/m.gguf`, "--sha256", sha(MODEL).toUpperCase(), "--json");
    expect(ok.json).toMatchObject({ verified: "sha256", sha256: sha(MODEL) });
  });

  test("hf:user/repo/file: resolved to /resolve/main/, the x-linked-etag checksum is verified", async () => {
    const s = serve({
      "/org/good-GGUF/resolve/main/good.Q4_K_M.gguf": { body: MODEL, hfRedirect: { linkedEtag: sha(MODEL) } },
      "/org/bad-GGUF/resolve/main/bad.gguf": { body: MODEL, hfRedirect: { linkedEtag: sha(OTHER) } },
    });
    process.env.HF_ENDPOINT = s.url;
    try {
      const good = await pull("hf:org/good-GGUF/good.Q4_K_M.gguf", "--json");
      expect(good.code).toBe(0);
      expect(good.json).toMatchObject({ path: join(models, "good.Q4_K_M.gguf"), verified: "sha256", sha256: sha(MODEL) });
      expect(s.log.map((l) => l.path)).toEqual(["/org/good-GGUF/resolve/main/good.Q4_K_M.gguf", "/cdn/org/good-GGUF/resolve/main/good.Q4_K_M.gguf"]);

      const bad = await pull("hf:org/bad-GGUF/bad.gguf", "--json");
      expect(bad.code).toBe(1);
      expect(bad.json.error).toContain("checksum mismatch for bad.gguf");
      expect(existsSync(join(models, "bad.gguf"))).toBe(false);
      expect(existsSync(join(models, "bad.gguf.partial"))).toBe(false);
    } finally {
      delete process.env.HF_ENDPOINT;
    }
  });

  test("HF_TOKEN goes to the Hugging Face endpoint only", async () => {
    const s = serve({ "/org/r/resolve/main/m.gguf": { body: MODEL }, "/plain/m.gguf": { body: MODEL } });
    process.env.HF_ENDPOINT = s.url;
    process.env.HF_TOKEN = "hf_secret";
    try {
      expect((await pull("hf:org/r/m.gguf", "--json")).code).toBe(0);
      expect((await pull(`${s.url.replace("127.0.0.1", "localhost")}/plain/m.gguf`, "--name", "other.gguf", "--json")).code).toBe(0);
      expect(s.log.map((l) => [l.path, l.authorization])).toEqual([
        ["/org/r/resolve/main/m.gguf", "Bearer hf_secret"],
        ["/plain/m.gguf", null],
      ]);
    } finally {
      delete process.env.HF_ENDPOINT;
      delete process.env.HF_TOKEN;
    }
  });

  test("hf:user/repo:quant picks the repo's one GGUF of that quant", async () => {
    const s = serve(
      { "/org/chat-GGUF/resolve/main/chat-q4_k_m.gguf": { body: MODEL } },
      {
        "org/chat-GGUF": ["README.md", "chat-q4_k_m.gguf", "chat-q8_0.gguf", "chat-iq4_k_m.gguf", "big-q8_0-00001-of-00002.gguf", "big-q8_0-00002-of-00002.gguf"],
      },
    );
    const opts = { hfEndpoint: s.url };
    expect(await resolveModelUri("hf:org/chat-GGUF:Q4_K_M", opts)).toEqual({ url: `${s.url}/org/chat-GGUF/resolve/main/chat-q4_k_m.gguf`, fileName: "chat-q4_k_m.gguf" });
    expect(resolveModelUri("hf:org/chat-GGUF:Q8_0", opts)).rejects.toThrow("matches several files (chat-q8_0.gguf, big-q8_0-00001-of-00002.gguf)");
    expect(resolveModelUri("hf:org/chat-GGUF:Q2_K", opts)).rejects.toThrow("no GGUF file for quant 'Q2_K' in hf:org/chat-GGUF");
    expect(resolveModelUri("hf:org/missing:Q4_K_M", opts)).rejects.toThrow("Hugging Face repo org/missing not found");
    expect(await resolveModelUri("hf:org/chat-GGUF/sub/dir/x.gguf#dev", opts)).toEqual({ url: `${s.url}/org/chat-GGUF/resolve/dev/sub/dir/x.gguf`, fileName: "x.gguf" });
    expect(resolveModelUri("ftp://x/y.gguf")).rejects.toThrow("unsupported model URI");
  });

  test("404: a clear error, exit 1, nothing written", async () => {
    const s = serve({});
    const r = await pull(`${s.url}/nope/missing.gguf`, "--json");
    expect(r.code).toBe(1);
    expect(r.json).toEqual({ error: `not found (HTTP 404): ${s.url}/nope/missing.gguf` });
    expect(readdirSync(models)).toEqual([]);
    expect(s.log.length).toBe(1); // a 404 is not retried
  });

  test("a file that is not a GGUF is not kept as a model", async () => {
    const s = serve({ "/page.gguf": { body: new TextEncoder().encode("<html>Sign in to continue</html>") } });
    const r = await pull(`${s.url}/page.gguf`, "--json");
    expect(r.code).toBe(1);
    expect(r.json.error).toContain("did not send a GGUF file");
    expect(readdirSync(models)).toEqual([]);
  });

  test("bad arguments are usage errors", async () => {
    models = join(dir, "usage");
    expect((await pull()).code).toBe(2);
    const name = await cli("model", "pull", "http://127.0.0.1:9/x.gguf", "--name", "../escape.gguf", "--models-dir", models, "--json");
    expect(name.code).toBe(1);
    expect(name.json.error).toContain("cannot use '../escape.gguf' as a model file name");
    const hex = await cli("model", "pull", "http://127.0.0.1:9/x.gguf", "--sha256", "abc", "--models-dir", models, "--json");
    expect(hex.json.error).toBe("--sha256 must be 64 hex digits, got 'abc'");
  });
});
