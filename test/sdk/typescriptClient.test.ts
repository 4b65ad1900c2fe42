import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LoreholdClient, LoreholdError, packFolder, retryAfterSeconds, type LoreholdErrorCode } from "../../sdk/typescript/src/index.ts";
import { setRateLimits } from "../../src/ratelimit/rateLimitSettings.ts";
import { grantTopUp, setPlan } from "../../src/credits/ledger.ts";
import { tempDir } from "../support/testApp.ts";
import { startLiveServer, type LiveServer } from "./liveServer.ts";

// real llama.cpp (tiny GGUF) behind a real socket, on shared cores
setDefaultTimeout(120_000);

let s: LiveServer;
let server: LoreholdClient;
let editor: LoreholdClient;
const ask = (playerId: string, extra: Record<string, unknown> = {}) => ({ text: "Tell me about the town.", entityMindId: s.world.minds.garrick, playerId, ...extra });

beforeAll(async () => {
  s = await startLiveServer();
  server = new LoreholdClient({ baseUrl: s.baseUrl, apiKey: s.world.keys.server });
  editor = new LoreholdClient({ baseUrl: `${s.baseUrl}/v1/`, apiKey: s.world.keys.editor });
}, 60_000);
afterAll(() => s.close());

async function failure(p: Promise<unknown> | (() => unknown)): Promise<LoreholdError> {
  try {
    await (typeof p === "function" ? p() : p);
  } catch (e) {
    if (e instanceof LoreholdError) return e;
    throw e;
  }
  throw new Error("expected a LoreholdError");
}

describe("interact", () => {
  test("a reply, typed from the OpenAPI document", async () => {
    const r = await server.interact(ask("sdk-1"));
    expect(r.success).toBe(true);
    expect(r.character).toBe("Garrick");
    expect(typeof r.response).toBe("string");
    expect(r.metadata.creditsUsed).toBeGreaterThan(0);
  });
  test("interactStream: tokens as they come, then the final reply whose text is the tokens", async () => {
    const tokens: string[] = [];
    let reply: any = null;
    for await (const ev of server.interactStream(ask("sdk-stream"))) {
      if (ev.type === "token") {
        expect(reply).toBeNull();
        tokens.push(ev.text);
      } else if (ev.type === "reply") reply = ev.reply;
    }
    expect(tokens.length).toBeGreaterThan(0);
    expect(reply).toMatchObject({ success: true, character: "Garrick" });
    expect(reply.response).toBe(tokens.join("").trim());
  });
  test("breaking out of a stream cancels it; the client is usable after", async () => {
    for await (const ev of server.interactStream(ask("sdk-break"))) {
      expect(ev.type).toBe("token");
      break;
    }
    expect((await server.interact(ask("sdk-after-break"))).success).toBe(true);
  });
});

describe("every failure carries the spec's SDK code", () => {
  const rows: Array<[string, () => Promise<unknown>, LoreholdErrorCode, number | undefined, string | undefined]> = [
    ["400 → VALIDATION_ERROR", () => server.interact({ ...ask("v"), text: "" }), "VALIDATION_ERROR", 400, "Missing or empty text"],
    ["401 → AUTH_FAILED", () => new LoreholdClient({ baseUrl: s.baseUrl, apiKey: "sk_server_nope" }).interact(ask("a")), "AUTH_FAILED", 401, "Invalid API key"],
    ["401 on an editor endpoint → AUTH_FAILED", () => new LoreholdClient({ baseUrl: s.baseUrl, apiKey: s.world.keys.server }).minds(), "AUTH_FAILED", 401, "Invalid authentication"],
    ["403 → REQUEST_FAILED", () => editor.interact(ask("e")), "REQUEST_FAILED", 403, "Invalid authentication"],
    ["404 → REQUEST_FAILED", () => server.interact({ ...ask("n"), entityMindId: "mind_nope" }), "REQUEST_FAILED", 404, "Entity Mind not found"],
    ["404 on a stream, before any token", () => server.interactStream({ ...ask("n"), entityMindId: "mind_nope" }).next(), "REQUEST_FAILED", 404, "Entity Mind not found"],
    ["no server → TRANSPORT_ERROR", () => new LoreholdClient({ baseUrl: "http://127.0.0.1:9", apiKey: "sk_server_x" }).interact(ask("t")), "TRANSPORT_ERROR", undefined, undefined],
    ["no base URL → CONFIG_ERROR", async () => new LoreholdClient({ baseUrl: "", apiKey: "k" }), "CONFIG_ERROR", undefined, undefined],
    ["not a URL → CONFIG_ERROR", async () => new LoreholdClient({ baseUrl: "localhost:8080", apiKey: "k" }), "CONFIG_ERROR", undefined, undefined],
    ["no key → CONFIG_ERROR", async () => new LoreholdClient({ baseUrl: s.baseUrl, apiKey: " " }), "CONFIG_ERROR", undefined, undefined],
    ["a bad option → CONFIG_ERROR", async () => new LoreholdClient({ baseUrl: s.baseUrl, apiKey: "k", timeoutMs: -1 }), "CONFIG_ERROR", undefined, undefined],
  ];
  for (const [name, call, code, status, serverError] of rows) {
    test(name, async () => {
      const e = await failure(call);
      expect(e.code).toBe(code);
      expect(e.status).toBe(status);
      expect(e.serverError).toBe(serverError);
    });
  }
  test("402 → INSUFFICIENT_CREDITS", async () => {
    setPlan(s.app.ctx, s.world.teamId, 0);
    try {
      const e = await failure(server.interact(ask("poor")));
      expect([e.code, e.status, e.serverError]).toEqual(["INSUFFICIENT_CREDITS", 402, "Insufficient credits"]);
    } finally {
      grantTopUp(s.app.ctx, s.world.teamId, 5_000_000_000);
    }
  });
  test("503 → SERVICE_UNAVAILABLE (a server without a model)", async () => {
    const e = await failure(
      new LoreholdClient({
        baseUrl: s.baseUrl,
        apiKey: "k",
        fetch: async () => new Response(JSON.stringify({ error: "Generation failed" }), { status: 503, headers: { "content-type": "application/json" } }),
      }).interact(ask("x")),
    );
    expect([e.code, e.status, e.serverError]).toEqual(["SERVICE_UNAVAILABLE", 503, "Generation failed"]);
  });
  test("a 400 carries the server's details", async () => {
    const e = await failure(server.interact({ ...ask("d"), bogus: 1 } as never));
    expect(e.code).toBe("VALIDATION_ERROR");
    expect(e.serverError).toBe("Unknown field(s)");
  });
  test("the key never appears in errors, messages or the client's JSON", async () => {
    const key = "sk_server_" + "s3cret".repeat(6);
    const c = new LoreholdClient({ baseUrl: s.baseUrl, apiKey: key });
    const e = await failure(c.interact(ask("leak")));
    const t = new LoreholdClient({ baseUrl: "http://127.0.0.1:9", apiKey: key });
    const te = await failure(t.interact(ask("leak")));
    for (const text of [e.message, JSON.stringify(e), String(e.stack), JSON.stringify(e.extra.body), te.message, String(te.stack), JSON.stringify(c), JSON.stringify(t)]) {
      expect(text).not.toContain("s3cret");
    }
    expect(JSON.stringify(c)).toBe(`{"baseUrl":"${s.baseUrl}","apiKey":"[redacted]"}`);
  });
});

describe("Retry-After on 429, bounded", () => {
  test("waits what the server says, then succeeds", async () => {
    setRateLimits(s.app.ctx, s.world.projectId, { perPlayerPerMinute: 1 });
    try {
      const waits: number[] = [];
      // the injected sleep moves the server's clock instead of waiting for real
      const c = new LoreholdClient({ baseUrl: s.baseUrl, apiKey: s.world.keys.server, maxRetryDelayMs: 120_000, sleep: async (ms) => { waits.push(ms); s.clock.advance(ms); } });
      expect((await c.interact(ask("rl-1"))).success).toBe(true);
      s.clock.advance(30_000);
      expect((await c.interact(ask("rl-1"))).success).toBe(true);
      expect(waits).toEqual([30_000]);
    } finally {
      setRateLimits(s.app.ctx, s.world.projectId, { perPlayerPerMinute: 60 });
    }
  });
  test("too long a wait, or retries used up: RATE_LIMITED with retryAfter", async () => {
    setRateLimits(s.app.ctx, s.world.projectId, { perPlayerPerMinute: 1 });
    try {
      const waits: number[] = [];
      const c = new LoreholdClient({ baseUrl: s.baseUrl, apiKey: s.world.keys.server, maxRetryDelayMs: 5_000, sleep: async (ms) => void waits.push(ms) });
      await c.interact(ask("rl-2"));
      const e = await failure(c.interact(ask("rl-2")));
      expect([e.code, e.status, e.serverError, e.retryAfter]).toEqual(["RATE_LIMITED", 429, "Rate limit exceeded", 60]);
      expect(waits).toEqual([]);
      const d = new LoreholdClient({ baseUrl: s.baseUrl, apiKey: s.world.keys.server, maxRetries: 2, maxRetryDelayMs: 120_000, sleep: async (ms) => void waits.push(ms) });
      const e2 = await failure(d.interact(ask("rl-2")));
      expect(e2.code).toBe("RATE_LIMITED");
      expect(waits).toEqual([60_000, 60_000]); // the clock did not move: two bounded retries, then the error
    } finally {
      setRateLimits(s.app.ctx, s.world.projectId, { perPlayerPerMinute: 60 });
    }
  });
  test("Retry-After as seconds, as an HTTP date, or from the body", () => {
    expect(retryAfterSeconds("12", null)).toBe(12);
    expect(retryAfterSeconds(new Date(Date.now() + 5_500).toUTCString(), null)).toBeGreaterThanOrEqual(4);
    expect(retryAfterSeconds(null, { retryAfter: 7 })).toBe(7);
    expect(retryAfterSeconds(null, {})).toBeUndefined();
  });
});

describe("timeouts and cancellation (AbortSignal)", () => {
  test("a timeout is TRANSPORT_ERROR with aborted: timeout", async () => {
    const e = await failure(server.interact(ask("slow"), { timeoutMs: 1 }));
    expect(e.code).toBe("TRANSPORT_ERROR");
    expect(e.extra.aborted).toBe("timeout");
  });
  test("the caller's signal cancels: TRANSPORT_ERROR with aborted: true", async () => {
    const ctl = new AbortController();
    const p = server.interact(ask("cancel"), { signal: ctl.signal });
    ctl.abort();
    const e = await failure(p);
    expect([e.code, e.extra.aborted]).toEqual(["TRANSPORT_ERROR", true]);
    const already = await failure(server.minds({ signal: AbortSignal.abort() }));
    expect(already.extra.aborted).toBe(true);
  });
  test("a cancelled retry wait is TRANSPORT_ERROR too", async () => {
    setRateLimits(s.app.ctx, s.world.projectId, { perPlayerPerMinute: 1 });
    try {
      const c = new LoreholdClient({ baseUrl: s.baseUrl, apiKey: s.world.keys.server, maxRetryDelayMs: 120_000 });
      await c.interact(ask("rl-3"));
      const ctl = new AbortController();
      setTimeout(() => ctl.abort(), 50);
      const e = await failure(c.interact(ask("rl-3"), { signal: ctl.signal }));
      expect([e.code, e.extra.aborted]).toEqual(["TRANSPORT_ERROR", true]);
    } finally {
      setRateLimits(s.app.ctx, s.world.projectId, { perPlayerPerMinute: 60 });
    }
  });
});

describe("lore read API (Editor Key)", () => {
  test("minds, tags, locations, relationships, types, documents, one document, export, settings", async () => {
    const minds = await editor.minds();
    expect(minds.minds.map((m) => m.entityName).sort()).toEqual(["Elena", "Garrick"]);
    const tags = await editor.tags();
    expect(tags.success).toBe(true);
    expect(tags.totalCount).toBe(tags.tags.length);
    expect((await editor.locations()).locations.map((l) => l.name)).toContain("Rusty Tankard");
    expect((await editor.relationships({ entityMindId: s.world.minds.garrick })).relationships.length).toBeGreaterThan(0);
    expect((await editor.relationshipTypes()).success).toBe(true);
    const docs = await editor.documents({ limit: 2 });
    expect(docs.documents).toHaveLength(2);
    expect(docs.pagination).toMatchObject({ limit: 2, offset: 0, hasMore: true });
    const one = await editor.document(docs.documents[0].id);
    expect(one.document.id).toBe(docs.documents[0].id);
    expect((await editor.exportDocuments({ limit: 1 })).documents).toHaveLength(1);
    expect((await editor.projectSettings()).settings.maxSessionLength).toBe(20);
    const missing = await failure(editor.document("doc_nope"));
    expect([missing.code, missing.status]).toEqual(["REQUEST_FAILED", 404]);
  });
});

describe("scanFolder: manifest with SHA-256, ZIP, upload, confirm, poll", () => {
  // a second server without a model: the scan's model refinement on the random-weight GGUF only costs time here
  let plain: LiveServer;
  let scanner: LoreholdClient;
  beforeAll(async () => {
    plain = await startLiveServer({ model: false });
    scanner = new LoreholdClient({ baseUrl: plain.baseUrl, apiKey: plain.world.keys.editor });
  });
  afterAll(() => plain.close());
  test("packFolder: sorted relative paths, sizes and hashes; dot files skipped", async () => {
    const dir = tempDir("sdk-pack-");
    mkdirSync(join(dir, "towns"), { recursive: true });
    writeFileSync(join(dir, "towns", "a.md"), "abc");
    writeFileSync(join(dir, ".secret.md"), "no");
    writeFileSync(join(dir, "b.txt"), "");
    const { manifest, zip } = await packFolder(dir);
    expect(manifest).toEqual([
      { filename: "b.txt", relativePath: "b.txt", sizeBytes: 0, contentHash: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
      { filename: "a.md", relativePath: "towns/a.md", sizeBytes: 3, contentHash: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
    ]);
    expect([...zip.subarray(0, 4)]).toEqual([0x50, 0x4b, 0x03, 0x04]);
  });
  test("a folder of lore scanned to COMPLETED by the real server, then committed", async () => {
    const dir = tempDir("sdk-scan-");
    mkdirSync(join(dir, "places"), { recursive: true });
    writeFileSync(join(dir, "places", "harbor.md"), "# Saltmere Harbor\n\nThe harbor of Saltmere shelters forty fishing boats. Harbor master Ysolde Crane keeps the tide ledger.\n");
    writeFileSync(join(dir, "people.md"), "# Ysolde Crane\n\nYsolde Crane is the harbor master of Saltmere. She distrusts smugglers.\n");
    const seen: string[] = [];
    const job = await scanner.scanFolder(dir, { pollIntervalMs: 200, pollTimeoutMs: 90_000, userContext: "A fishing town", onProgress: (j) => seen.push(j.status) });
    expect(job.status).toBe("COMPLETED");
    expect(job.totalFiles).toBe(2);
    expect(seen.at(-1)).toBe("COMPLETED");
    const extractions = (job as any).extractions as Array<{ id: string }>;
    expect(extractions.length).toBeGreaterThan(0);
    const committed = await scanner.commit({ jobId: job.jobId, extractionIds: extractions.map((x) => x.id) });
    expect(committed.committed).toBe(extractions.length);
    const again = await failure(scanner.scanFolder(tempDir("sdk-empty-")));
    expect(again.code).toBe("VALIDATION_ERROR");
  });
});
