import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { setRateLimits } from "../../src/ratelimit/rateLimitSettings.ts";
import { tempDir } from "../support/testApp.ts";
import { startLiveServer, type LiveServer } from "./liveServer.ts";

/**
 * The Unity client's scene calls (sdk/unity/Runtime/Scenes.cs) and the Scenes sample's driver
 * (Samples~/Scenes/SceneDriver.cs), compiled with Mono's mcs and run against a live server, as the typed-turn
 * sample is (test/sdk/unityClient.test.ts). Without mcs/mono this file skips, loudly.
 */
setDefaultTimeout(600_000);

const SDK = new URL("../../sdk/unity/", import.meta.url).pathname;
const mcs = Bun.which("mcs");
const mono = Bun.which("mono");
const haveMono = !!(mcs && mono);
if (!haveMono) console.warn("\n!!! SKIPPING the Unity scenes sample tests: `mcs`/`mono` not found (bash scripts/ci/bridges.sh installs them).\n");

const glob = (sub: string) => [...new Bun.Glob("*.cs").scanSync({ cwd: join(SDK, sub) })].sort().map((f) => join(SDK, sub, f));

describe.skipIf(!haveMono)("the Unity scenes sample against a live server (Mono)", () => {
  let s: LiveServer;
  let dir: string;
  beforeAll(async () => {
    s = await startLiveServer();
    // 4 lines a minute per player (the clock is manual: no hit leaves the window during the run)
    setRateLimits(s.app.ctx, s.world.projectId, { perPlayerPerMinute: 4 });
    dir = tempDir("lorehold-unity-scenes-");
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("the runtime and the sample compile with mcs, warnings as errors; every scene test passes", async () => {
    const exe = join(dir, "SceneTests.exe");
    const build = Bun.spawnSync([mcs!, "-langversion:7.2", "-warnaserror+", `-out:${exe}`, "-r:System.Net.Http.dll", ...glob("Runtime"), join(SDK, "Samples~/Scenes/SceneDriver.cs"), ...glob("Tests/Scenes")], {
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(build.stdout.toString() + build.stderr.toString()).toBe("");
    const run = Bun.spawn([mono!, exe, s.baseUrl, s.world.keys.server, s.world.minds.garrick, s.world.minds.elena], { stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited]);
    const lines = out.trim().split("\n");
    expect({ failed: lines.filter((l) => !l.startsWith("PASS ")), stderr: err.trim() }).toEqual({ failed: [], stderr: "" });
    expect(lines).toHaveLength(3);
    expect(code).toBe(0);
    // The scene the sample ended is gone from the server; the limited one too.
    expect(s.app.db.query("SELECT COUNT(*) AS n FROM scenes").get()).toEqual({ n: 0 });
  });
});
