import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { setRateLimits } from "../../src/ratelimit/rateLimitSettings.ts";
import { writeBehaviour } from "../../src/behaviour/behaviourStore.ts";
import { writeTx } from "../../src/db/openDatabase.ts";
import { loadSession } from "../../src/npc/session/sessionStore.ts";
import { updateMind } from "../../src/lore/minds/writeMinds.ts";
import { tempDir } from "../support/testApp.ts";
import { startLiveServer, type LiveServer } from "./liveServer.ts";

/**
 * The Unity client's core (sdk/unity/Runtime, plain C# on HttpClient) compiled with Mono's mcs and its
 * test program (sdk/unity/Tests) run with mono against a live server. scripts/ci/bridges.sh installs
 * mono-complete; without it this file skips, loudly.
 */
setDefaultTimeout(240_000);

const SDK = new URL("../../sdk/unity/", import.meta.url).pathname;
const mcs = Bun.which("mcs");
const mono = Bun.which("mono");
const haveMono = !!(mcs && mono);
if (!haveMono) {
  console.warn(
    "\n!!! SKIPPING the Unity (C#) client tests: `mcs`/`mono` not found. Install Mono with `bash scripts/ci/bridges.sh` " +
      "(Debian's mono-complete) to run them.\n",
  );
}

describe.skipIf(!haveMono)("Unity C# client against a live server (Mono)", () => {
  let s: LiveServer;
  let dir: string;
  beforeAll(async () => {
    s = await startLiveServer();
    // one interaction a minute per player: the C# tests use one player id each, and one of them hits the limit
    setRateLimits(s.app.ctx, s.world.projectId, { perPlayerPerMinute: 1 });
    dir = tempDir("lorehold-unity-");
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("the runtime compiles as a library with mcs (no warnings as errors, C# 7.2)", () => {
    const r = Bun.spawnSync([mcs!, "-langversion:7.2", "-warnaserror+", "-target:library", `-out:${join(dir, "Lorehold.Client.dll")}`, "-r:System.Net.Http.dll", ...glob("Runtime")], { stdout: "pipe", stderr: "pipe" });
    expect(r.stdout.toString() + r.stderr.toString()).toBe("");
    expect(r.exitCode).toBe(0);
  });

  test("every C# test passes against the server", async () => {
    const exe = join(dir, "ClientTests.exe");
    const build = Bun.spawnSync([mcs!, "-langversion:7.2", `-out:${exe}`, "-r:System.Net.Http.dll", ...glob("Runtime"), ...glob("Tests")], { stdout: "pipe", stderr: "pipe" });
    expect(build.stdout.toString() + build.stderr.toString()).toBe("");
    const run = Bun.spawn([mono!, exe, s.baseUrl, s.world.keys.server, s.world.keys.editor, s.world.minds.garrick], { stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited]);
    const lines = out.trim().split("\n");
    const failed = lines.filter((l) => !l.startsWith("PASS "));
    expect({ failed, stderr: err.trim() }).toEqual({ failed: [], stderr: "" });
    expect(code).toBe(0);
    expect(lines).toHaveLength(16);
  });

  test("the typed-turn sample runs a turn's actions and reports their results with the next line", async () => {
    // Elena gets a behaviour; this test's player may speak more than once a minute. TypedTurnNpc.cs needs UnityEngine: not built here.
    const mind = s.world.minds.elena;
    const behaviour = {
      emotions: ["calm", "happy"],
      actions: [{ name: "wave", description: "Wave at the player." }, { name: "pour", description: "Pour a drink.", params: { type: "object" as const, properties: { drink: { type: "string" as const, enum: ["ale", "cider"] } } } }],
    };
    writeTx(s.app.ctx.db, () => writeBehaviour(s.app.ctx.db, s.world.projectId, mind, behaviour, new Date().toISOString()));
    // The world's Elena samples at 0.2, where random weights keep picking the same name; at 1.5 the tail's
    // choice among "none", "pour" and "wave" varies from turn to turn (and short replies keep turns quick).
    updateMind(s.app.ctx, s.world.projectId, mind, { responseConfig: { verbosity: "terse", maxTokens: 8, temperature: 1.5 } });
    setRateLimits(s.app.ctx, s.world.projectId, { perPlayerPerMinute: 60 });
    const exe = join(dir, "TypedTurnTests.exe");
    const build = Bun.spawnSync([mcs!, "-langversion:7.2", "-warnaserror+", `-out:${exe}`, "-r:System.Net.Http.dll", ...glob("Runtime"), join(SDK, "Samples~/TypedTurn/TypedTurnDriver.cs"), ...glob("Tests/TypedTurn")], { stdout: "pipe", stderr: "pipe" });
    expect(build.stdout.toString() + build.stderr.toString()).toBe("");
    const run = Bun.spawn([mono!, exe, s.baseUrl, s.world.keys.server, mind], { stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited]);
    const lines = out.trim().split("\n");
    expect({ failed: lines.filter((l) => l.startsWith("FAIL ")), stderr: err.trim() }).toEqual({ failed: [], stderr: "" });
    expect(lines.filter((l) => l.startsWith("PASS "))).toHaveLength(2);
    expect(code).toBe(0);
    // What the sample reported is what the server keeps with the player's last turn (names from its own record).
    const reported = lines.filter((l) => l.startsWith("REPORTED ")).map((l) => l.split(" ").slice(1));
    expect(reported.length).toBeGreaterThan(0);
    const session = loadSession(s.app.ctx, s.world.projectId, mind, "unity-typed").messages;
    const notes = session.filter((m) => m.role === "user").at(-1)!.notes?.actionResults ?? [];
    expect(notes.map((r) => [r.id, r.status])).toEqual(reported);
    for (const r of notes) expect(["pour", "wave"]).toContain(r.name);
  }, 900_000);
});

function glob(sub: string): string[] {
  return [...new Bun.Glob("*.cs").scanSync({ cwd: join(SDK, sub) })].sort().map((f) => join(SDK, sub, f));
}
