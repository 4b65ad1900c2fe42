/**
 * Idle connections over real sockets. Bun closes a connection that is silent for
 * `idleTimeoutSeconds`; an interaction is silent until its reply, for longer than that on a busy
 * CPU, so its request gets the generation budget instead. A client that pauses mid-body is the
 * same silence seen from the other side, which makes it testable without a slow model.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { connect } from "node:net";
import { App } from "../../src/app/App.ts";
import { interactIdleSeconds, isInteractPath } from "../../src/app/idleTimeouts.ts";
import { ConfigError, loadConfig } from "../../src/config/config.ts";
import { silentLogger } from "../../src/ops/logger.ts";
import { tempDir, testConfig } from "../support/testApp.ts";

setDefaultTimeout(30_000);
const dir = tempDir("lorehold-idle-");
let app: App;
let port: number;
beforeAll(async () => {
  app = await App.start(testConfig(dir, { port: 0, idleTimeoutSeconds: 1 }), { logger: silentLogger, loadModel: false });
  port = app.port!;
});
afterAll(async () => {
  await app.stop();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Writes `first`, pauses `pauseMs`, writes `then`; resolves with everything received and when the
 * server closed the socket (ms after connecting), or null if it was still open after `waitMs`.
 */
function rawExchange(first: string, pauseMs: number, then: string, waitMs = 6000): Promise<{ received: string; closedAfterMs: number | null }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect(port, "127.0.0.1");
    let received = "";
    socket.setEncoding("utf8");
    socket.on("data", (d) => void (received += d));
    const giveUp = setTimeout(() => {
      socket.destroy();
      resolve({ received, closedAfterMs: null });
    }, waitMs);
    socket.on("close", () => {
      clearTimeout(giveUp);
      resolve({ received, closedAfterMs: performance.now() - started });
    });
    socket.on("error", (e) => (e.message.includes("ECONNRESET") ? undefined : reject(e)));
    socket.write(first);
    setTimeout(() => void (!socket.destroyed && then && socket.write(then)), pauseMs);
  });
}

const post = (path: string, body: string) =>
  [`POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`, body] as const;

// Bun checks idle sockets on a ~4 s tick, so a 1 s timeout fires within about 5 s (9 s allowed on a
// loaded machine); the interaction pauses 6 s. Both run at once to keep the suite quick.
test("a silent connection is closed after idleTimeoutSeconds; POST /v1/npc/interact may stay silent longer and is answered", async () => {
  const [head, body] = post("/v1/npc/interact", JSON.stringify({ text: "" }));
  const [idle, interact] = await Promise.all([
    rawExchange("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n", 0, "", 10000),
    rawExchange(head, 6000, body, 8000),
  ]);
  expect(idle.received).toStartWith("HTTP/1.1 200");
  expect(idle.closedAfterMs).not.toBeNull();
  expect(idle.closedAfterMs!).toBeGreaterThan(900);
  expect(idle.closedAfterMs!).toBeLessThan(9000);
  expect(interact.received).toStartWith("HTTP/1.1 400");
  expect(interact.received).toContain('"Missing or empty text"');
});

describe("the interaction's idle budget", () => {
  test.each([
    [60_000, 10, 125],
    [10_000, 10, 25],
    [1_000, 30, 30],
    [600_000, 10, 255],
  ])("generationTimeoutMs %d, idleTimeoutSeconds %d → %d s", (generationTimeoutMs, idleTimeoutSeconds, want) => {
    expect(interactIdleSeconds({ generationTimeoutMs, idleTimeoutSeconds })).toBe(want);
  });

  test.each([
    ["http://127.0.0.1:8080/v1/npc/interact", true],
    ["http://[::1]:8080/v1/npc/interact?x=1", true],
    ["http://localhost/v1/npc/interact/", false],
    ["http://localhost/v1/npc/interaction", false],
    ["http://localhost/admin/v1/projects/p/interact-preview", false],
    // the Studio's playground runs the same interaction (a typed turn's tail is silent after the last token)
    ["http://127.0.0.1:8080/admin/v1/projects/proj_1/playground", true],
    ["http://localhost/admin/v1/projects/proj_1/playground/x", false],
    ["http://localhost/admin/v1/projects/a/b/playground", false],
    // a scene's turn is interactions one after another
    ["http://127.0.0.1:8080/v1/scenes/scene_1/turn", true],
    ["http://localhost/v1/scenes/scene_1", false],
    ["http://localhost/v1/scenes/a/b/turn", false],
  ])("%s is the interaction route: %p", (url, want) => {
    expect(isInteractPath(url)).toBe(want);
  });

  test.each([0, 256])("idleTimeoutSeconds %d is refused", (v) => {
    expect(() => loadConfig({ cwd: dir, env: {}, flags: { idleTimeoutSeconds: v } })).toThrow(ConfigError);
  });
});
