import { setDefaultTimeout, afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { buildWorld, type World } from "../support/world.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { getProjectBalance } from "../../src/credits/ledger.ts";
import { updateSettings } from "../../src/projects/settings.ts";
import { playerPendingSummaries } from "../../src/npc/memory/pendingSummaryStore.ts";
import { loadSession } from "../../src/npc/session/sessionStore.ts";
import type { ChatMessage } from "../../src/llm/types.ts";
import { watchGenerate } from "../support/capturePrompts.ts";

// real llama.cpp (a tiny random-weight model) on shared cores
setDefaultTimeout(120_000);

const MODEL = ensureTinyModel(undefined, { nCtx: 2048 });
let t: TestApp;
let w: World;
let other: World;

/** Every prompt the generation backend was given, by conversation key (the production path, recorded on its way in). */
const prompts: { key: string; messages: ChatMessage[]; signal?: AbortSignal }[] = [];
/** While set, generation waits for it before starting (to hold a turn mid-way and cut in). */
let gate: Promise<void> | null = null;
const promptsOf = (mindId: string) => prompts.filter((p) => p.key.includes(`:${mindId}:`)).map((p) => p.messages.map((m) => m.content).join("\n"));

const scenes = (method: string, path: string, body?: unknown, key: string | null = w.keys.server, headers: Record<string, string> = {}) =>
  t.call(method, `/v1/scenes${path}`, { key, body, headers });
const newScene = async (body: Record<string, unknown>) => {
  const r = await scenes("POST", "", body);
  expect(r.status).toBe(200);
  return r.body.sceneId as string;
};
const balance = () => getProjectBalance(t.app.ctx, w.projectId).available;
const charged = (lines: any[]) => lines.reduce((n, l) => n + Math.round(l.metadata.creditsUsed * 1_000_000), 0);

function parseSse(text: string): { event: string; data: any }[] {
  return text
    .trim()
    .split("\n\n")
    .map((block) => {
      const [ev, data] = block.split("\n");
      return { event: ev.replace("event: ", ""), data: JSON.parse(data.replace("data: ", "")) };
    });
}

beforeAll(async () => {
  // One thread: the machine's cores are shared with other processes (see test/npc/interact.test.ts).
  t = await createTestApp({ model: MODEL, parallel: 4, contextSize: 2048, maxReplyTokens: 12, threads: 1 });
  w = buildWorld(t.app.ctx as any, "Thornhaven", { index: "none" });
  other = buildWorld(t.app.ctx as any, "Elsewhere", { index: "none" });
  await t.app.scheduler.trigger("indexer");
  watchGenerate(t.app, {
    before: (req) => {
      prompts.push({ key: req.conversationKey ?? "", messages: req.messages, signal: req.signal });
      return gate;
    },
  });
}, 60_000);
afterAll(() => t.close());

describe("a scene's life", () => {
  test("create, read, join, leave, end", async () => {
    const id = await newScene({ minds: [w.minds.garrick, { mindId: w.minds.elena, talkativeness: 0.9 }], location: "Rusty Tankard", playerId: "p-life" });
    expect(id).toMatch(/^scene_/);
    const g = await scenes("GET", `/${id}`);
    expect(g.status).toBe(200);
    expect(g.body).toMatchObject({ sceneId: id, playerId: "p-life", context: { location: "Rusty Tankard" }, lines: [], turns: 0 });
    expect(g.body.minds.map((m: any) => [m.character, m.talkativeness])).toEqual([["Garrick", 0.5], ["Elena", 0.9]]);
    const left = await scenes("PATCH", `/${id}`, { leave: [w.minds.garrick] });
    expect(left.status).toBe(200);
    expect(left.body.minds.map((m: any) => m.character)).toEqual(["Elena"]);
    const back = await scenes("PATCH", `/${id}`, { join: [{ mindId: w.minds.garrick, talkativeness: 0.2 }, { mindId: w.minds.elena, talkativeness: 0.1 }] });
    expect(back.body.minds.map((m: any) => [m.character, m.talkativeness]).sort()).toEqual([["Elena", 0.1], ["Garrick", 0.2]]);
    const end = await scenes("DELETE", `/${id}`);
    expect(end).toMatchObject({ status: 200, body: { sceneId: id, ended: true } });
    expect((await scenes("GET", `/${id}`)).status).toBe(404);
    expect((await scenes("DELETE", `/${id}`)).status).toBe(404);
  });

  const bad: Array<[string, () => unknown, number, string]> = [
    ["no minds", () => ({ minds: [] }), 400, "Invalid request"],
    ["unknown field", () => ({ minds: [w.minds.garrick], mood: "x" }), 400, "Invalid request"],
    ["talkativeness past 1", () => ({ minds: [{ mindId: w.minds.garrick, talkativeness: 2 }] }), 400, "Invalid request"],
    ["a mind twice", () => ({ minds: [w.minds.garrick, w.minds.garrick] }), 400, "Invalid request"],
    ["nine minds", () => ({ minds: Array.from({ length: 9 }, (_, i) => `mind_${i}`) }), 400, "Invalid request"],
    ["a mind without knowledge tags", () => ({ minds: [w.minds.blank] }), 400, "Entity Mind has no knowledge tags configured"],
    ["an unknown mind", () => ({ minds: ["mind_nope"] }), 404, "Entity Mind not found"],
    ["another project's mind", () => ({ minds: [w.minds.garrick, other.minds.elena] }), 404, "Entity Mind not found"],
    ["a context past its total", () => ({ minds: [w.minds.garrick], context: { custom: "x".repeat(500), recentEvents: Array(10).fill("y".repeat(100)), situation: "z".repeat(200), weather: "w".repeat(200), location: "l".repeat(200) } }), 400, "Invalid request"],
  ];
  for (const [name, body, status, error] of bad) {
    test(`POST ${status} ${error} — ${name}; nothing written`, async () => {
      const r = await scenes("POST", "", body());
      expect(r.status).toBe(status);
      expect(r.body.error).toBe(error);
      const n = t.app.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM scenes").get()!.n;
      const again = await scenes("POST", "", body());
      expect(again.status).toBe(status);
      expect(t.app.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM scenes").get()!.n).toBe(n);
    });
  }

  test("PATCH: leaving a mind not present, joining another project's mind or one without knowledge: refused, nothing changed", async () => {
    const id = await newScene({ minds: [w.minds.garrick] });
    expect((await scenes("PATCH", `/${id}`, { leave: [w.minds.elena] })).body).toMatchObject({ error: "Invalid request", details: [`leave: ${w.minds.elena} is not in the scene`] });
    expect((await scenes("PATCH", `/${id}`, { join: [w.minds.elena, other.minds.garrick] })).body).toEqual({ error: "Entity Mind not found" });
    expect((await scenes("PATCH", `/${id}`, { join: [w.minds.blank] })).body).toEqual({ error: "Entity Mind has no knowledge tags configured" });
    expect((await scenes("GET", `/${id}`)).body.minds.map((m: any) => m.character)).toEqual(["Garrick"]);
  });
});

describe("keys and projects", () => {
  let id: string;
  beforeAll(async () => {
    id = await newScene({ minds: [w.minds.garrick] });
  });
  const routes: Array<[string, string, () => string, unknown]> = [
    ["POST", "", () => "", { minds: [] }],
    ["GET", "/", () => id, undefined],
    ["PATCH", "/", () => id, { leave: [] }],
    ["POST", "/turn/", () => id, { text: "hi" }],
    ["DELETE", "/", () => id, undefined],
  ];
  for (const [method, path, sid, body] of routes) {
    const url = () => (path === "/turn/" ? `/${sid()}/turn` : path === "/" ? `/${sid()}` : "");
    test(`${method} ${path || "/"}: no key 401, an Editor Key 403, a revoked key 401`, async () => {
      expect(await scenes(method, url(), body, null)).toMatchObject({ status: 401, body: { error: "Invalid API key" } });
      expect(await scenes(method, url(), body, w.keys.editor)).toMatchObject({ status: 403, body: { error: "Invalid authentication" } });
      expect(await scenes(method, url(), body, w.keys.revokedServer)).toMatchObject({ status: 401, body: { error: "Invalid API key" } });
    });
    if (path) {
      test(`${method} ${path}: another project's key reads the scene as absent`, async () => {
        expect(await scenes(method, url(), body, other.keys.server)).toMatchObject({ status: 404, body: { error: "Scene not found" } });
      });
    }
  }
  test("after all that the scene is untouched", async () => {
    const g = await scenes("GET", `/${id}`);
    expect(g.status).toBe(200);
    expect(g.body.lines).toEqual([]);
  });
});

describe("turns", () => {
  test("turn body errors: 400, and a speaker not in the scene", async () => {
    const id = await newScene({ minds: [w.minds.garrick] });
    for (const body of [{ maxLines: 7 }, { maxLines: 0 }, { text: "   " }, { text: "hi", extra: 1 }, { speaker: w.minds.elena }]) {
      const r = await scenes("POST", `/${id}/turn`, body);
      expect(r.status).toBe(400);
    }
    expect((await scenes("GET", `/${id}`)).body.lines).toEqual([]);
  });

  test("lines: shape, members only, each charged exactly what it reports", async () => {
    const id = await newScene({ minds: [w.minds.garrick, w.minds.elena], playerId: "p-lines" });
    const before = balance();
    const r = await scenes("POST", `/${id}/turn`, { text: "Hello both of you. Garrick, what is on the menu?", maxLines: 4 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, sceneId: id, metadata: {} });
    const lines = r.body.lines;
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(lines.length).toBeLessThanOrEqual(4);
    // addressed by name: Garrick answers first
    expect(lines[0]).toMatchObject({ mindId: w.minds.garrick, character: "Garrick", metadata: { why: { reason: "addressed" } } });
    for (const [i, l] of lines.entries()) {
      expect(Object.keys(l).sort()).toEqual(["character", "metadata", "mindId", "response"]);
      expect([w.minds.garrick, w.minds.elena]).toContain(l.mindId);
      expect(l.metadata.creditsUsed).toBeGreaterThan(0);
      expect(l.metadata.timing.promptTokens).toBeGreaterThan(0);
      if (i > 0) expect(l.mindId).not.toBe(lines[i - 1].mindId); // nobody twice in a row unaddressed... or addressed by the other
    }
    expect(before - balance()).toBe(charged(lines));
    const view = (await scenes("GET", `/${id}`)).body;
    expect(view.turns).toBe(1);
    expect(view.lines.map((l: any) => l.text)).toEqual(["Hello both of you. Garrick, what is on the menu?", ...lines.map((l: any) => l.response)]);
    expect(view.lines[0]).toMatchObject({ mindId: null, character: "The player" });
  });

  test("ambient: with no text the minds talk among themselves, and the talk winds down within the cap", async () => {
    const id = await newScene({ minds: [{ mindId: w.minds.garrick, talkativeness: 1 }, { mindId: w.minds.elena, talkativeness: 1 }] });
    const counts: number[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await scenes("POST", `/${id}/turn`, { maxLines: 6 });
      expect(r.status).toBe(200);
      counts.push(r.body.lines.length);
      for (const l of r.body.lines.slice(1)) expect(["talkativeness", "addressed"]).toContain(l.metadata.why.reason);
    }
    for (const n of counts) expect(n).toBeGreaterThanOrEqual(1);
    for (const n of counts) expect(n).toBeLessThanOrEqual(6);
    // without a player nobody keeps a memory: the talk lives in conversations keyed to the scene alone
    expect(loadSession(t.app.ctx, w.projectId, w.minds.garrick, `scene:${id}`).messages.length).toBeGreaterThan(0);
    await scenes("DELETE", `/${id}`);
    expect(loadSession(t.app.ctx, w.projectId, w.minds.garrick, `scene:${id}`).messages).toEqual([]);
  });

  test("SSE: speaker, its tokens and its line, for each line in order, then done equal to the JSON answer", async () => {
    const id = await newScene({ minds: [w.minds.garrick, w.minds.elena] });
    const r = await t.app.handle(
      new Request(`http://localhost/v1/scenes/${id}/turn`, {
        method: "POST",
        headers: { authorization: `Bearer ${w.keys.server}`, "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify({ text: "Elena, and then Garrick: tell me everything.", maxLines: 3 }),
      }),
    );
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("text/event-stream");
    const events = parseSse(await r.text());
    const done = events.at(-1)!;
    expect(done.event).toBe("done");
    expect(events.filter((e) => e.event === "done").length).toBe(1);
    // the order: (speaker token* line)+ done
    const shape = events.map((e) => (e.event === "speaker" ? "S" : e.event === "token" ? "t" : e.event === "line" ? "L" : e.event === "done" ? "D" : "?")).join("");
    expect(shape).toMatch(/^(St*L)+D$/);
    const speakers = events.filter((e) => e.event === "speaker");
    const lines = events.filter((e) => e.event === "line").map((e) => e.data);
    expect(lines).toEqual(done.data.lines);
    expect(speakers.map((s) => s.data.mindId)).toEqual(lines.map((l: any) => l.mindId));
    expect(speakers[0].data).toMatchObject({ mindId: w.minds.elena, character: "Elena", why: { reason: "addressed" } });
    // each line's tokens make its response
    let at = 0;
    for (const line of lines) {
      const start = events.findIndex((e, i) => i >= at && e.event === "speaker");
      const end = events.findIndex((e, i) => i > start && e.event === "line");
      expect(events.slice(start + 1, end).map((e) => e.data.text).join("").trim()).toBe(line.response);
      at = end + 1;
    }
  });

  test("SSE errors before the first line are plain JSON", async () => {
    const r = await scenes("POST", "/scene_nope/turn", { text: "hi" }, w.keys.server, { accept: "text/event-stream" });
    expect(r).toMatchObject({ status: 404, body: { error: "Scene not found" } });
  });

  test("a new turn cancels the running one: its unfinished line is not kept or charged, the new one answers", async () => {
    const id = await newScene({ minds: [w.minds.garrick, w.minds.elena] });
    const before = balance();
    let open!: () => void;
    gate = new Promise((r) => (open = r));
    const first = scenes("POST", `/${id}/turn`, { text: "Tell me a long story.", maxLines: 6 });
    while (!prompts.some((p) => p.messages.some((m) => m.content.includes("Tell me a long story.")))) await Bun.sleep(5);
    const second = scenes("POST", `/${id}/turn`, { text: "Stop. Garrick, a word.", maxLines: 1 });
    // until the second turn has cut the first (its generation's signal aborted), not a fixed 20 ms a loaded box may
    // not give the second request to get there
    const held = prompts.find((p) => p.messages.some((m) => m.content.includes("Tell me a long story.")))!;
    expect(held.signal).toBeDefined();
    while (!held.signal!.aborted) await Bun.sleep(5);
    gate = null;
    open();
    const [a, b] = await Promise.all([first, second]);
    expect(a.status).toBe(200);
    expect(a.body.metadata).toEqual({ cancelled: true });
    expect(a.body.lines).toEqual([]);
    expect(b.status).toBe(200);
    expect(b.body.lines.length).toBe(1);
    expect(b.body.lines[0].mindId).toBe(w.minds.garrick);
    expect(before - balance()).toBe(charged(b.body.lines));
    const said = (await scenes("GET", `/${id}`)).body.lines.map((l: any) => l.text);
    expect(said).toEqual(["Tell me a long story.", "Stop. Garrick, a word.", b.body.lines[0].response]);
  });

  test("ledger: concurrent turns on several scenes settle exactly what their lines report", async () => {
    const ids = await Promise.all([0, 1, 2].map(() => newScene({ minds: [w.minds.garrick, w.minds.elena] })));
    const before = balance();
    const rs = await Promise.all(ids.flatMap((id) => [scenes("POST", `/${id}/turn`, { text: "Evening.", maxLines: 2 })]));
    for (const r of rs) expect(r.status).toBe(200);
    expect(before - balance()).toBe(rs.reduce((n, r) => n + charged(r.body.lines), 0));
    const open = t.app.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM credit_reservations WHERE status = 'open'").get();
    expect(open?.n ?? 0).toBe(0);
  });
});

describe("knowledge per speaker", () => {
  const tunnel = "A tunnel runs from the cellar to the docks.";
  test("a mind hears only what was said aloud: another's lore never reaches its prompt, the other's words do", async () => {
    const id = await newScene({ minds: [w.minds.garrick, w.minds.elena], playerId: "p-leak" });
    prompts.length = 0;
    // Before: Garrick is probed about the tunnel while Elena (whose lore it is) sits at the table.
    const probe = await scenes("POST", `/${id}/turn`, { text: "Is there a tunnel under the cellar to the docks?", speaker: w.minds.garrick });
    expect(probe.status).toBe(200);
    expect(promptsOf(w.minds.garrick).length).toBeGreaterThan(0);
    for (const p of promptsOf(w.minds.garrick)) {
      expect(p).not.toContain(tunnel);
      expect(p).not.toContain("Quiet smuggler");
      expect(p).not.toContain("Knows the tunnels");
    }
    // Elena is asked: her own lore is in her prompt (the control that the probe could have found it).
    const told = await scenes("POST", `/${id}/turn`, { text: "Elena, where does the tunnel run?", speaker: w.minds.elena });
    expect(told.status).toBe(200);
    expect(promptsOf(w.minds.elena).some((p) => p.includes(tunnel))).toBe(true);
    const elenaSaid = told.body.lines[0].response as string;
    // After: what Elena said aloud reaches Garrick (as her words), her lore and persona still do not.
    prompts.length = 0;
    const after = await scenes("POST", `/${id}/turn`, { text: "Garrick, did you hear her?", speaker: w.minds.garrick });
    expect(after.status).toBe(200);
    const g = promptsOf(w.minds.garrick);
    expect(g.length).toBeGreaterThan(0);
    if (elenaSaid.trim()) expect(g[0]).toContain(`Elena said: "${elenaSaid.trim()}"`);
    expect(g[0]).toContain("Garrick, did you hear her?");
    for (const p of g) {
      expect(p).not.toContain(tunnel);
      expect(p).not.toContain("Quiet smuggler");
    }
  });

  test("a mind that joins mid-scene hears only what is said after it walked in", async () => {
    const id = await newScene({ minds: [w.minds.elena] });
    await scenes("POST", `/${id}/turn`, { text: "Before-join secret words zebra." });
    await scenes("PATCH", `/${id}`, { join: [w.minds.garrick] });
    prompts.length = 0;
    const r = await scenes("POST", `/${id}/turn`, { text: "After-join words giraffe.", speaker: w.minds.garrick });
    expect(r.status).toBe(200);
    const g = promptsOf(w.minds.garrick);
    expect(g[0]).toContain("After-join words giraffe.");
    for (const p of g) expect(p).not.toContain("zebra");
  });
});

describe("memory and expiry", () => {
  test("ending a scene checkpoints each mind's memory of it for the player", async () => {
    updateSettings(t.app.ctx, w.projectId, { longTermMemoryEnabled: true });
    const id = await newScene({ minds: [w.minds.garrick, w.minds.elena], playerId: "p-memory" });
    await scenes("POST", `/${id}/turn`, { text: "Garrick, then Elena: hello!", maxLines: 2, speaker: w.minds.garrick });
    const spoke = new Set<string>((await scenes("GET", `/${id}`)).body.lines.filter((l: any) => l.mindId).map((l: any) => l.mindId));
    const end = await scenes("DELETE", `/${id}`);
    expect(end.body.memoryCheckpoints).toBe(spoke.size);
    const pending = playerPendingSummaries(t.app.db, w.projectId, "p-memory");
    expect(new Set(pending.map((p) => p.mindId))).toEqual(spoke);
    for (const m of spoke) expect(loadSession(t.app.ctx, w.projectId, m as string, "p-memory").messages).toEqual([]);
  });

  test("a scene idle past sceneIdleSeconds ends on the expiry job (memories checkpointed); an active one stays", async () => {
    const idle = await newScene({ minds: [w.minds.garrick], playerId: "p-expiry" });
    await scenes("POST", `/${idle}/turn`, { text: "Hello there." });
    t.clock.advance((t.app.config.sceneIdleSeconds - 60) * 1000);
    const active = await newScene({ minds: [w.minds.garrick] });
    t.clock.advance(120 * 1000);
    const run = await t.app.scheduler.trigger("scene-expiry");
    expect((run?.lastResult as { expired: number }).expired).toBeGreaterThanOrEqual(1); // the earlier tests' scenes are idle too
    expect((await scenes("GET", `/${idle}`)).status).toBe(404);
    expect((await scenes("GET", `/${active}`)).status).toBe(200);
    expect(playerPendingSummaries(t.app.db, w.projectId, "p-expiry").map((p) => p.mindId)).toEqual([w.minds.garrick]);
  });
});
