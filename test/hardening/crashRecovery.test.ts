/**
 * Credits held by a crash stayed held for 15 minutes. A real server process is
 * killed with SIGKILL while interactions generate; the next start releases every interaction
 * reservation (no generation survives a restart) and leaves a scan's reservation with its job.
 */
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { App } from "../../src/app/App.ts";
import { ManualClock } from "../../src/core/clock.ts";
import { getBalance, reserve } from "../../src/credits/ledger.ts";
import { openDatabase } from "../../src/db/openDatabase.ts";
import { createMind } from "../../src/lore/minds/writeMinds.ts";
import { createLogger, silentLogger } from "../../src/ops/logger.ts";
import { setRateLimits } from "../../src/ratelimit/rateLimitSettings.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { tempDir, testConfig } from "../support/testApp.ts";
import { buildWorld } from "../support/world.ts";

setDefaultTimeout(180_000);
const dir = tempDir("lorehold-crash-");
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const MAIN = join(import.meta.dir, "..", "..", "src", "main.ts");

const openReservations = (db: ReturnType<typeof openDatabase>) =>
  db.query<{ purpose: string; n: number }, []>("SELECT purpose, COUNT(*) AS n FROM credit_reservations WHERE status = 'open' GROUP BY purpose").all();

async function freePort(): Promise<number> {
  const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
}

test("kill -9 during interactions, then a restart: no interaction reservation stays open; the scan's does", async () => {
  const model = ensureTinyModel(undefined, { nCtx: 2048 });
  const config = testConfig(dir, { model, parallel: 2, contextSize: 2048, maxReplyTokens: 200 });

  // The world, written by one App that then stops (no model needed for that).
  const setup = await App.create(config, { logger: silentLogger, loadModel: false, clock: new ManualClock(new Date()) });
  const w = buildWorld(setup.ctx as any, "Thornhaven");
  setRateLimits(setup.ctx, w.projectId, { perPlayerPerMinute: 100_000, perProjectPerMinute: 100_000 });
  const talker = createMind(setup.ctx, w.projectId, {
    key: "talker",
    entityName: "Talker",
    personality: "Never stops talking.",
    knowledgeTags: ["tavern"],
    responseConfig: { maxTokens: 200 },
  }).id;
  const scanHold = reserve(setup.ctx, { teamId: w.teamId, projectId: w.projectId, amount: 5_000, purpose: "scan" });
  const startBalance = getBalance(setup.ctx, w.teamId).available;
  await setup.stop();

  // A real server process, asked for 8 interactions at once.
  const port = await freePort();
  const server = Bun.spawn([process.execPath, MAIN, "serve"], {
    cwd: dir,
    env: {
      ...process.env,
      LOREHOLD_PORT: String(port),
      LOREHOLD_DATA_DIR: config.dataDir,
      LOREHOLD_MODELS_DIR: config.modelsDir,
      LOREHOLD_MODEL: model,
      LOREHOLD_THREADS: "2",
      LOREHOLD_PARALLEL: "2",
      LOREHOLD_CONTEXT_SIZE: "2048",
      LOREHOLD_LOG_LEVEL: "warn",
    },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  const stderr = new Response(server.stderr).text();
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`serve exited ${server.exitCode}: ${await stderr}`);
    if (Date.now() > deadline) throw new Error("the server never became ready");
    const ok = await fetch(`${base}/readyz`).then((r) => r.status === 200, () => false);
    if (ok) break;
    await Bun.sleep(100);
  }
  const asks = Array.from({ length: 8 }, (_, i) =>
    fetch(`${base}/v1/npc/interact`, {
      method: "POST",
      headers: { authorization: `Bearer ${w.keys.server}`, "content-type": "application/json" },
      body: JSON.stringify({ text: "Tell me everything you know, at length.", entityMindId: talker, playerId: `p${i}` }),
    }).then((r) => r.status, () => "cut"),
  );

  // Kill it once several reservations are open (the interactions are generating or queued).
  const watch = openDatabase(join(config.dataDir, "lorehold.db"));
  const openAt = Date.now() + 60_000;
  while ((openReservations(watch).find((r) => r.purpose === "interaction")?.n ?? 0) < 4) {
    if (Date.now() > openAt) throw new Error(`reservations never opened: ${await stderr}`);
    await Bun.sleep(5);
  }
  server.kill(9);
  expect(await server.exited).not.toBe(0);
  const outcomes = await Promise.all(asks);
  expect(outcomes.filter((o) => o === "cut").length).toBeGreaterThan(0);
  const heldAtCrash = openReservations(watch).find((r) => r.purpose === "interaction")?.n ?? 0;
  expect(heldAtCrash).toBeGreaterThanOrEqual(4);
  watch.close();

  // The restart releases them, at once, and says so.
  const logs: any[] = [];
  const again = await App.create(config, { logger: createLogger("warn", {}, (l) => logs.push(JSON.parse(l))), loadModel: false });
  try {
    expect(openReservations(again.db)).toEqual([{ purpose: "scan", n: 1 }]);
    const released = logs.find((l) => l.msg === "interaction reservations left open by an earlier run were released");
    expect(released?.count).toBe(heldAtCrash);
    // Only what was answered (200 before the kill) is charged; the scan still holds its 5,000.
    const settled = again.db
      .query<{ s: number }, [string]>("SELECT COALESCE(-SUM(amount_micro), 0) AS s FROM credit_ledger WHERE team_id = ? AND kind = 'interaction'")
      .get(w.teamId)!.s;
    expect(getBalance(again.ctx, w.teamId).available).toBe(startBalance - settled);
    expect(again.db.query("SELECT status FROM credit_reservations WHERE id = ?").get(scanHold.reservationId)).toEqual({ status: "open" });
  } finally {
    await again.stop();
  }
});
