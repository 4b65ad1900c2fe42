import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { App } from "../../src/app/App.ts";
import { ManualClock } from "../../src/core/clock.ts";
import { silentLogger } from "../../src/ops/logger.ts";
import { runCli } from "../../src/cli/runCli.ts";
import { warmKnownMinds } from "../../src/npc/warmMinds.ts";
import { readSelection } from "../../src/npc/sharedLore/sharedLoreStore.ts";
import { tempDir, testConfig } from "../support/testApp.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";

// A fresh install: `init`, `import` the demo pack, then the server starts (minds warmed at once, while every
// document is still PENDING), the indexer works through the pack, the warm job ticks. Each mind must end up with
// its shared-lore level without any player's turn; the same for a pack imported while the server runs.
// Real llama.cpp on the tiny model (the warm job only acts with an engine); the ticks are triggered, not timed.
setDefaultTimeout(120_000);

const PACK = join(import.meta.dir, "../../examples/thornhaven.yaml");
// The pack's words are pieces of the tiny model's vocab, as common words are in a real model's: its lore then
// costs about what it would with a real tokenizer, and some of each mind's chunks fit the shared budget.
const words = [...new Set(readFileSync(PACK, "utf8").match(/[A-Za-z][A-Za-z']*/g) ?? [])];
const dir = tempDir("lorehold-shared-start-");
const model = ensureTinyModel(undefined, { nCtx: 2048, extraWords: words });
const config = testConfig(dir, { model, threads: 1, parallel: 2, contextSize: 2048, maxReplyTokens: 64 });
const clock = new ManualClock(new Date());
let app: App | null = null;
afterAll(async () => {
  await app?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(...args: string[]): Promise<any> {
  const out: string[] = [];
  const code = await runCli([...args, "--data-dir", config.dataDir, "--json"], { out: (l) => out.push(l), err: (l) => out.push(l) }, {});
  expect(code).toBe(0);
  return JSON.parse(out.join("\n"));
}

async function indexAll(a: App): Promise<void> {
  for (;;) {
    const r = (await a.scheduler.trigger("indexer"))!.lastResult as { indexed: number } | null;
    if (!r || r.indexed === 0) return;
  }
}

async function preview(a: App, adminToken: string, projectId: string, mindId: string) {
  const res = await a.handle(
    new Request(`http://localhost/admin/v1/projects/${projectId}/interact-preview`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ text: "Good evening.", entityMindId: mindId, playerId: "nobody-yet" }),
    }),
  );
  expect(res.status).toBe(200);
  const body = (await res.json()) as { lore: { turn: string; tags: string[] }[]; prompt: { content: string }[] };
  return { shared: body.lore.filter((l) => l.turn === "shared"), system: body.prompt[0].content };
}

const sessions = (a: App) => a.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM sessions").get()!.n;

describe("the shared-lore level after a fresh import and start", () => {
  let adminToken = "";

  test("init, import, serve: the indexer and the warm job's first ticks give the minds their shared lore, no turn needed", async () => {
    adminToken = (await cli("init")).adminToken;
    const pack = await cli("import", PACK);
    const { projectId } = pack;
    const garrick: string = pack.ids.minds.garrick;

    app = await App.create(config, { clock, logger: silentLogger });
    // What App.start does right after starting the scheduler: the known minds warmed at once — before the
    // indexer's first tick, so their shared lore is chosen while every document is PENDING: empty.
    expect(warmKnownMinds(app.ctx, app.ctx.llm!)).toBeGreaterThanOrEqual(7);
    expect(readSelection(app.db, projectId, garrick)!.chunkIds).toEqual([]);

    clock.advance(1_000);
    await indexAll(app);
    clock.advance(5_000);
    await app.scheduler.trigger("mind-warm"); // its first tick after start
    // The warm job itself made Garrick's choice again (nobody read his prompt since)…
    expect(readSelection(app.db, projectId, garrick)!.chunkIds.length).toBeGreaterThan(0);
    clock.advance(5_000);
    const second = await app.scheduler.trigger("mind-warm");
    // …and warmed the new prompts once they held still for a tick.
    expect((second!.lastResult as { warmed: number }).warmed).toBeGreaterThanOrEqual(1);

    const g = await preview(app, adminToken, projectId, garrick);
    expect(g.shared.length).toBeGreaterThan(0);
    for (const l of g.shared) expect(l.tags.some((t) => ["tavern", "town-history", "general"].includes(t))).toBe(true);
    expect(g.system).toContain("[Lore]");
    expect(sessions(app)).toBe(0);

    // The warmed prefix is that prompt: a newcomer's first turn starts from it.
    await app.ctx.llm!.kvIdle();
    const res = await app.handle(
      new Request(`http://localhost/admin/v1/projects/${projectId}/keys`, {
        method: "POST",
        headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
        body: JSON.stringify({ type: "server" }),
      }),
    );
    const key = ((await res.json()) as { key: string }).key;
    const turn = await app.handle(
      new Request("http://localhost/v1/npc/interact", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ text: "Good evening.", entityMindId: garrick, playerId: "first-player" }),
      }),
    );
    expect(turn.status).toBe(200);
    expect(turn.headers.get("server-timing") ?? "").toMatch(/kv-restore;desc="prefix"/);
  });

  test("a pack imported while the server runs: a preview before indexing chose nothing; once indexed, the level is there", async () => {
    const text = readFileSync(PACK, "utf8").replace("name: Thornhaven", "name: Thornhaven Again");
    const file = join(dir, "again.yaml");
    writeFileSync(file, text);
    const pack = await cli("import", file);
    const garrick: string = pack.ids.minds.garrick;
    // An author looks at the new project at once: nothing indexed yet, so nothing shared (and that choice is stored).
    expect((await preview(app!, adminToken, pack.projectId, garrick)).shared).toEqual([]);
    clock.advance(1_000);
    await indexAll(app!);
    clock.advance(5_000);
    await app!.scheduler.trigger("mind-warm"); // the warm job's first sight of the project: already fully indexed
    expect(readSelection(app!.db, pack.projectId, garrick)!.chunkIds.length).toBeGreaterThan(0);
    expect((await preview(app!, adminToken, pack.projectId, garrick)).shared.length).toBeGreaterThan(0);
  });
});
