import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createTestApp, testConfig, type TestApp } from "../support/testApp.ts";
import { App } from "../../src/app/App.ts";
import { silentLogger } from "../../src/ops/logger.ts";
import { bigProject } from "../../bench/support/bigProject.ts";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import { createDocument } from "../../src/lore/documents/writeDocuments.ts";
import { knowledgeTagNames } from "../../src/lore/minds/mindStore.ts";
import { selectSharedLore, sharedLoreOutdated } from "../../src/npc/sharedLore/sharedLore.ts";
import { readSelection } from "../../src/npc/sharedLore/sharedLoreStore.ts";
import { SHARED_LORE_WARMUP_JOB } from "../../src/npc/sharedLore/sharedLoreWarmup.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { PROMPT_WORDS } from "../support/bigPersona.ts";
import { llamaServerBinary, startLlamaServer } from "../support/llamaServer.ts";

// The shared-lore warm-up makes each mind's choice ahead of its first turn. Two servers hold the same two
// projects (bigProject is seeded: the same names, text and tags); one runs the warm-up, the other leaves every
// choice to the minds' first turns. Every mind's preview must be the same on both (the same static prompt, the
// same lore): the warm-up changes when a choice is made, never what it is. Real SQLite, LanceDB and the
// server's own indexer (hashing embedder); no model (the preview generates nothing).
setDefaultTimeout(120_000);

type World = { a: ReturnType<typeof bigProject>; b: ReturnType<typeof bigProject>; admin: string };
let warmed: TestApp;
let lazy: TestApp;
let w1: World;
let w2: World;

async function indexAll(t: TestApp): Promise<void> {
  for (;;) {
    const r = (await t.app.scheduler.trigger("indexer"))!.lastResult as { indexed: number } | null;
    if (!r || r.indexed === 0) return;
  }
}

async function world(t: TestApp): Promise<World> {
  const a = bigProject(t.app.ctx as never, { minds: 10, documents: 500, name: "A" });
  const b = bigProject(t.app.ctx as never, { minds: 4, documents: 150, name: "B" });
  await indexAll(t);
  return { a, b, admin: ensureAdminToken(t.app.db).adminToken };
}

const tick = async (t: TestApp) => (await t.app.scheduler.trigger(SHARED_LORE_WARMUP_JOB))!.lastResult as { chosen: number; walked: number; projects: number };

async function preview(t: TestApp, admin: string, projectId: string, mindId: string, playerId = "p1") {
  const r = await t.call("POST", `/admin/v1/projects/${projectId}/interact-preview`, {
    key: admin,
    body: { text: "Tell me about the harbour and the lantern.", entityMindId: mindId, playerId },
  });
  expect(r.status).toBe(200);
  const body = r.body as { prompt: { role: string; content: string }[]; lore: { documentName: string; chunkIndex: number; turn: string }[] };
  return { prompt: body.prompt, lore: body.lore.map((l) => `${l.turn}:${l.documentName}#${l.chunkIndex}`) };
}

const current = (t: TestApp, projectId: string, mindId: string) =>
  readSelection(t.app.db, projectId, mindId) !== null && !sharedLoreOutdated(t.app.ctx, projectId, { id: mindId, knowledgeTags: knowledgeTagNames(t.app.db, mindId) });

beforeAll(async () => {
  warmed = await createTestApp();
  lazy = await createTestApp();
  w1 = await world(warmed);
  w2 = await world(lazy);
});
afterAll(async () => {
  await warmed.close();
  await lazy.close();
});

describe("the shared-lore warm-up", () => {
  test("chooses every mind's shared lore of every project before any turn, and a second tick has nothing to do", async () => {
    for (const m of w1.a.minds) expect(readSelection(warmed.app.db, w1.a.projectId, m)).toBeNull();
    const r = await tick(warmed);
    expect(r).toEqual({ chosen: w1.a.minds.length + w1.b.minds.length, walked: 0, projects: 2 });
    for (const m of w1.a.minds) expect(current(warmed, w1.a.projectId, m)).toBe(true);
    for (const m of w1.b.minds) expect(current(warmed, w1.b.projectId, m)).toBe(true);
    expect(await tick(warmed)).toEqual({ chosen: 0, walked: 0, projects: 0 });
  });

  test("every mind's turn is the same whether its choice was made ahead or by the turn itself", async () => {
    let sharedSeen = 0;
    for (const [i, m] of w1.a.minds.entries()) {
      const ahead = await preview(warmed, w1.admin, w1.a.projectId, m);
      const byTurn = await preview(lazy, w2.admin, w2.a.projectId, w2.a.minds[i]);
      expect(ahead).toEqual(byTurn);
      sharedSeen += ahead.lore.filter((l) => l.startsWith("shared:")).length;
    }
    for (const [i, m] of w1.b.minds.entries()) expect(await preview(warmed, w1.admin, w1.b.projectId, m)).toEqual(await preview(lazy, w2.admin, w2.b.projectId, w2.b.minds[i]));
    // the comparison means something only if minds do carry shared lore
    expect(sharedSeen).toBeGreaterThan(w1.a.minds.length);
  });

  test("waits while the lore is being indexed, then chooses again for the project whose lore moved, and only that one", async () => {
    createDocument(warmed.app.ctx, w1.a.projectId, { name: "Aaa first in name order", content: "The harbour lantern burned all night.", tags: [w1.a.tags[0]] });
    expect(await tick(warmed)).toEqual({ chosen: 0, walked: 0, projects: 0 }); // a document waits for the indexer
    expect(current(warmed, w1.a.projectId, w1.a.minds[0])).toBe(false);
    await indexAll(warmed);
    const r = await tick(warmed);
    expect(r).toEqual({ chosen: w1.a.minds.length, walked: 0, projects: 1 });
    for (const m of w1.a.minds) expect(current(warmed, w1.a.projectId, m)).toBe(true);
    // a mind that knows the new document's tag has it in its shared lore now (first in name order)
    const knows = w1.a.minds.find((m) => knowledgeTagNames(warmed.app.db, m).includes(w1.a.tags[0]))!;
    expect((await preview(warmed, w1.admin, w1.a.projectId, knows)).lore).toContain("shared:Aaa first in name order#0");
  });
});

describe("the shared-lore warm-up with a remote generation pool", () => {
  // A pool counts a text it has not tokenized by the tokens per byte seen so far, which moves with what it counted
  // before: a choice counted so would depend on when it is made. The warm-up and a turn that chooses itself both
  // count the candidates by the server's /tokenize first (kept in SQLite), so the choice is the same whichever makes
  // it, and a mind's first turn after the warm-up asks the server nothing. A REAL llama-server on the suite's tiny
  // model; nothing depends on what it samples (no generation: previews and counts only).
  const suite = llamaServerBinary() ? test : test.skip;
  suite("chooses ahead by exact counts: a mind's first turn finds its choice and its counts, the choice a turn makes itself, kept across a restart", async () => {
    const model = ensureTinyModel(undefined, { nCtx: 2048, extraWords: PROMPT_WORDS });
    const server = await startLlamaServer({ binary: llamaServerBinary()!, model, parallel: 1, slotContext: 2048, threads: 1 });
    const backend = { url: server.url, model: "tiny", apiKey: null, maxConcurrent: 1, weight: 1, timeoutMs: 30_000, kind: "llama-server" as const };
    const flags = { generation: "remote", backends: [backend], contextSize: 2048, threads: 1 } as never;
    const ahead = await createTestApp(flags);
    const byTurn = await createTestApp(flags);
    const calls: string[] = [];
    const realFetch = globalThis.fetch;
    globalThis.fetch = Object.assign((input: string | URL | Request, init?: RequestInit) => {
      calls.push(new URL(input instanceof Request ? input.url : String(input)).pathname);
      return realFetch(input, init);
    }, realFetch);
    const tokenizeCalls = () => calls.filter((c) => c === "/tokenize").length;
    let restarted: App | null = null;
    try {
      const pa = bigProject(ahead.app.ctx as never, { minds: 4, documents: 200, name: "R" });
      const pb = bigProject(byTurn.app.ctx as never, { minds: 4, documents: 200, name: "R" });
      await indexAll(ahead);
      await indexAll(byTurn);
      expect(ahead.app.ctx.generation?.mode).toBe("remote");
      // the other server's running estimate far from the first's: a text of byte tokens only (one a byte)
      await byTurn.app.ctx.generation!.prepareCounts(["éè".repeat(2000)]);
      expect(await tick(ahead)).toEqual({ chosen: pa.minds.length, walked: 0, projects: 1 });
      expect(await tick(ahead)).toEqual({ chosen: 0, walked: 0, projects: 0 }); // once a revision
      for (const m of pa.minds) expect(current(ahead, pa.projectId, m)).toBe(true);
      for (const m of pb.minds) expect(readSelection(byTurn.app.db, pb.projectId, m)).toBeNull();
      const adminA = ensureAdminToken(ahead.app.db).adminToken;
      const adminB = ensureAdminToken(byTurn.app.db).adminToken;
      let sharedSeen = 0;
      for (const [i, m] of pa.minds.entries()) {
        const before = tokenizeCalls();
        const made = await preview(ahead, adminA, pa.projectId, m);
        expect(tokenizeCalls()).toBe(before); // its choice and every count its static prompt needs were ready
        const byItself = await preview(byTurn, adminB, pb.projectId, pb.minds[i]);
        expect(readSelection(byTurn.app.db, pb.projectId, pb.minds[i])).not.toBeNull();
        expect(made).toEqual(byItself);
        sharedSeen += made.lore.filter((l) => l.startsWith("shared:")).length;
      }
      expect(sharedSeen).toBeGreaterThan(pa.minds.length);
      // a restart reads the counts kept: another player's first turn with each mind still asks nothing
      await ahead.app.stop();
      restarted = await App.create(testConfig(ahead.dir, flags), { logger: silentLogger });
      const again = { ...ahead, app: restarted, call: (method: string, path: string, opts: { key?: string | null; body?: unknown } = {}) => callApp(restarted!, method, path, opts) };
      const before = tokenizeCalls();
      for (const m of pa.minds) await preview(again as TestApp, adminA, pa.projectId, m, "p2");
      expect(tokenizeCalls()).toBe(before);
      // choices made before, by a process that counted otherwise (here: no model at all), are current for the lore:
      // the warm-up keeps them, and still counts each mind's static prompt, so the first turns ask nothing either
      const other = await createTestApp(flags);
      try {
        const po = bigProject(other.app.ctx as never, { minds: 4, documents: 200, name: "R" });
        await indexAll(other);
        for (const m of po.minds) selectSharedLore({ ...other.app.ctx, generation: null, llm: null }, po.projectId, { id: m, knowledgeTags: knowledgeTagNames(other.app.db, m) });
        expect(await tick(other)).toEqual({ chosen: 0, walked: 0, projects: 1 });
        const adminO = ensureAdminToken(other.app.db).adminToken;
        const start = tokenizeCalls();
        for (const m of po.minds) await preview(other, adminO, po.projectId, m);
        expect(tokenizeCalls()).toBe(start);
      } finally {
        await other.close();
      }
    } finally {
      globalThis.fetch = realFetch;
      await restarted?.stop();
      await ahead.close();
      await byTurn.close();
      await server.stop();
    }
  });
});

async function callApp(app: App, method: string, path: string, opts: { key?: string | null; body?: unknown }) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  const res = await app.handle(new Request(`http://localhost${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) }));
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
}
