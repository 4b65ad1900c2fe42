/**
 * Hostile bodies against every route the router holds (the admin API
 * included). Each is refused before parsing with a 4xx JSON error carrying a request id; nothing is
 * buffered past the route's cap, so memory stays bounded (the fuzz run once peaked at 6.5 GB).
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { BODYLESS_METHODS, bodyCapFor, isFileBodyRoute, isRawBodyRoute, MAX_JSON_DEPTH } from "../../src/http/bodyLimits.ts";
import { exceedsJsonDepth } from "../../src/http/jsonDepth.ts";
import { authFor, concretePath, startHardeningApp } from "./hardeningApp.ts";
import { head, rawRequest, rssMb } from "./rawHttp.ts";

setDefaultTimeout(120_000);
let h: Awaited<ReturnType<typeof startHardeningApp>>;
beforeAll(async () => void (h = await startHardeningApp()));
afterAll(() => h.close());

const enc = new TextEncoder();
const deep = (n: number, open: string, close: string, inner = "1") => open.repeat(n) + inner + close.repeat(n);

/** A body of `total` bytes made as it is read, 64 KB at a time: the test itself never holds it. */
function streamed(total: number, prefix = '{"name":"'): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(64 * 1024).fill(0x78);
  let sent = 0;
  return new ReadableStream({
    pull(c) {
      if (sent === 0) {
        c.enqueue(enc.encode(prefix));
        sent += prefix.length;
      }
      if (sent >= total) return c.close();
      c.enqueue(chunk);
      sent += chunk.length;
    },
  });
}

type Hostile = { name: string; body: () => string | Uint8Array | ReadableStream<Uint8Array>; type: string; status: number; error: string; detail?: RegExp };
const HOSTILE: Hostile[] = [
  { name: "100,000 nested arrays (200 KB)", body: () => deep(100_000, "[", "]"), type: "application/json", status: 400, error: "Invalid request", detail: /nested deeper than 64/ },
  { name: "10,000 nested arrays inside a field", body: () => `{"name":${deep(10_000, "[", "]")}}`, type: "application/json", status: 400, error: "Invalid request", detail: /nested deeper/ },
  { name: "10,000 nested objects", body: () => deep(10_000, '{"a":', "}"), type: "application/json", status: 400, error: "Invalid request", detail: /nested deeper/ },
  { name: "10 MB string", body: () => streamed(10 * 1024 * 1024), type: "application/json", status: 413, error: "Request body too large" },
  { name: "invalid UTF-8", body: () => new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), type: "application/json", status: 400, error: "Invalid request", detail: /UTF-8/ },
  { name: "application/octet-stream", body: () => '{"text":"hi"}', type: "application/octet-stream", status: 415, error: "Unsupported media type" },
  { name: "multipart/form-data", body: () => '--x\r\nContent-Disposition: form-data; name="text"\r\n\r\nhi\r\n--x--', type: "multipart/form-data; boundary=x", status: 415, error: "Unsupported media type" },
  { name: "x-www-form-urlencoded", body: () => "text=hi&playerId=p", type: "application/x-www-form-urlencoded", status: 415, error: "Unsupported media type" },
  { name: "text/plain JSON", body: () => '{"text":"hi"}', type: "text/plain", status: 415, error: "Unsupported media type" },
];

async function send(method: string, path: string, body: string | Uint8Array | ReadableStream<Uint8Array>, type: string) {
  const res = await h.app.handle(
    new Request(`http://localhost${concretePath(path, h.w)}`, {
      method,
      headers: { authorization: authFor(path, h.w), "content-type": type },
      body,
    }),
  );
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, json, requestId: res.headers.get("x-request-id") };
}

describe("every route × every hostile body", () => {
  test("the table covers the admin API, the spec's surface and the operations routes", () => {
    expect(h.routes.length).toBeGreaterThan(60);
    expect(h.routes.some((r) => r.path.startsWith("/admin/v1/projects/:projectId/relationship-types"))).toBe(true);
  });

  for (const hostile of HOSTILE) {
    test(hostile.name, async () => {
      const before = rssMb();
      let peak = before;
      const seen: string[] = [];
      for (const r of h.routes) {
        if (isRawBodyRoute(r.method, concretePath(r.path, h.w))) continue;
        const res = await send(r.method, r.path, hostile.body(), hostile.type);
        peak = Math.max(peak, process.memoryUsage().rss / 1024 / 1024);
        const where = `${r.method} ${r.path}`;
        // Every answer is JSON with an error string and a request id; no 5xx, ever.
        expect({ where, status: res.status < 500, id: !!res.requestId }).toEqual({ where, status: true, id: true });
        if (res.status >= 400) expect({ where, error: typeof res.json?.error }).toEqual({ where, error: "string" });
        if (isFileBodyRoute(r.method, concretePath(r.path, h.w))) {
          // A card import reads its own format (PNG or JSON) under its 32 MB cap: a 4xx of its own.
          expect({ where, status: res.status >= 400 && res.status < 500 }).toEqual({ where, status: true });
          continue;
        }
        if (BODYLESS_METHODS.has(r.method)) {
          // A body a route never reads is dropped — unless it passes the cap (413).
          if (hostile.status === 413) expect({ where, status: res.status }).toEqual({ where, status: 413 });
          continue;
        }
        expect({ where, status: res.status, error: res.json.error }).toEqual({ where, status: hostile.status, error: hostile.error });
        if (hostile.detail) expect(res.json.details.join(" ")).toMatch(hostile.detail);
        seen.push(where);
      }
      expect(seen.length).toBeGreaterThan(25);
      // Bounded: nothing is parsed past the depth limit or buffered past the cap (8 MB at most).
      expect(peak - before).toBeLessThan(200);
    });
  }
});

describe("over a real socket", () => {
  test("a declared 100 MB Content-Length is 413 without reading the body, on every JSON route", async () => {
    const routes = h.routes.filter((r) => !BODYLESS_METHODS.has(r.method) && !isRawBodyRoute(r.method, concretePath(r.path, h.w)));
    const replies = await Promise.all(
      routes.map((r) =>
        rawRequest(
          h.port,
          head(r.method, concretePath(r.path, h.w), { authorization: authFor(r.path, h.w), "content-type": "application/json", "content-length": String(100 * 1024 * 1024) }),
          '{"name":"',
        ),
      ),
    );
    routes.forEach((r, i) => {
      const reply = replies[i];
      const route = `${r.method} ${r.path}`;
      expect({ route, status: reply?.status, error: reply?.json?.error, id: !!reply?.headers["x-request-id"] }).toEqual({
        route,
        status: 413,
        error: "Request body too large",
        id: true,
      });
    });
    // Each waits out the short lingering drain (1 s) for a body that never comes, then answers: a server that
    // waited for the 100 MB would never answer (no time bound needed to tell).
  });

  test("a 100 MB chunked body: kept up to the cap only, then discarded; 413, the server's RSS grows by less than 64 MB", async () => {
    const before = rssMb();
    const chunk = new Uint8Array(256 * 1024).fill(0x78);
    let written = 0;
    function* chunks() {
      yield enc.encode('{"text":"');
      while (written < 100 * 1024 * 1024) {
        written += chunk.length;
        yield chunk;
      }
    }
    const reply = await rawRequest(
      h.port,
      head("POST", "/v1/npc/interact", { authorization: authFor("/v1/npc/interact", h.w), "content-type": "application/json", "transfer-encoding": "chunked" }),
      chunks(),
    );
    expect(reply?.status).toBe(413);
    expect(reply?.json).toEqual({ error: "Request body too large", details: [`body: at most ${bodyCapFor("POST", "/v1/npc/interact")} bytes`] });
    expect(rssMb() - before).toBeLessThan(64);
  });
});

describe("the depth scan", () => {
  test.each([
    ["flat object", '{"a":1,"b":[1,2,3]}', false],
    ["exactly the limit", deep(MAX_JSON_DEPTH, "[", "]"), false],
    ["one past the limit", deep(MAX_JSON_DEPTH + 1, "[", "]"), true],
    ["brackets inside strings do not count", `{"a":"${"[".repeat(1000)}"}`, false],
    ["an escaped quote does not end the string", `{"a":"\\"${"{".repeat(1000)}"}`, false],
    ["an escaped backslash before the closing quote", `{"a":"\\\\",${'"b":['.repeat(70)}1${"]".repeat(70)}}`, true],
  ])("%s", (_, text, want) => {
    expect(exceedsJsonDepth(enc.encode(text), MAX_JSON_DEPTH)).toBe(want);
  });
});

describe("route caps", () => {
  test.each([
    ["POST", "/v1/npc/interact", 2],
    ["POST", "/studio/api/projects/proj_1/v1/npc/interact", 2],
    ["POST", "/v1/scanner/submit-archive", 8],
    ["POST", "/studio/api/projects/proj_1/v1/scanner/submit-archive", 8],
    ["POST", "/admin/v1/projects/proj_1/packs/import", 8],
    ["POST", "/admin/v1/projects/proj_1/playground", 2],
    ["PATCH", "/admin/v1/projects/proj_1/documents/doc_1", 8],
    ["POST", "/admin/v1/projects/proj_1/import/card", 32],
    ["POST", "/admin/v1/projects/proj_1/tags", 1],
    ["GET", "/v1/lore/documents", 1],
  ])("%s %s: %d MB", (method, path, mb) => {
    expect(bodyCapFor(method, path)).toBe(mb * 1024 * 1024);
  });
});
