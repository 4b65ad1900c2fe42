import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { TestApp } from "../support/testApp.ts";
import { demoApp } from "./helpers.ts";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import { createProject } from "../../src/projects/projectService.ts";
import { createApiKey } from "../../src/auth/apiKeys.ts";
import { LORE_TEST_JOB } from "../../src/loretests/loreTestJob.ts";
import { recordTurn, MAX_LINE_CHARS, MAX_RECORDED_TURNS } from "../../src/loretests/recording/recordTurn.ts";
import { setRecording } from "../../src/loretests/recording/recordingSettings.ts";
import { playerHash } from "../../src/loretests/recording/playerHash.ts";
import { recordingRow } from "../../src/loretests/recording/candidateStore.ts";

// real llama.cpp (a tiny random-weight GGUF) on 2 shared cores: what the replies say is noise, what reached the
// prompt is the production path's, so the recorded trace (the Rusty Tankard's document) holds whatever the weights.
setDefaultTimeout(180_000);

let t: TestApp;
let projectId: string;
let otherProject: string;
let admin: string;
let server: string;
let otherServer: string;
let garrick: string;

beforeAll(async () => {
  let ids: Record<string, Record<string, string>>;
  ({ t, projectId, ids } = await demoApp());
  garrick = ids.minds.garrick;
  admin = ensureAdminToken(t.app.db).adminToken;
  otherProject = createProject(t.app.ctx, { name: "Elsewhere" }).id;
  server = createApiKey(t.app.ctx, { projectId, type: "server" }).key;
  otherServer = createApiKey(t.app.ctx, { projectId: otherProject, type: "server" }).key;
}, 120_000);
afterAll(() => t?.close());

const base = (p = projectId) => `/admin/v1/projects/${p}/lore-tests`;
const setRec = (body: unknown, p = projectId) => t.call("PATCH", `${base(p)}/recording`, { key: admin, body });
const candidates = async (p = projectId) => (await t.call("GET", `${base(p)}/candidates`, { key: admin })).body.candidates as any[];
const say = async (playerId: string, text: string, headers: Record<string, string> = {}) => {
  const r = await t.call("POST", "/v1/npc/interact", { key: server, body: { text, entityMindId: garrick, playerId }, headers });
  expect(r.status).toBe(200);
  return r.body;
};
const clear = async () => {
  for (const c of await candidates()) await t.call("DELETE", `${base()}/candidates/${c.id}`, { key: admin });
};

describe("recording real conversations as candidate lore tests", () => {
  test("off by default: conversations are never recorded", async () => {
    expect((await t.call("GET", `${base()}/recording`, { key: admin })).body).toEqual({ recordConversations: false, recordSampleRate: 0 });
    await say("p-off", "What is the Rusty Tankard like?");
    await say("p-off", "And the ale?");
    expect(await candidates()).toEqual([]);
    // A sample rate alone is no consent.
    expect((await setRec({ recordSampleRate: 1 })).body).toEqual({ recordConversations: false, recordSampleRate: 1 });
    await say("p-off2", "What is the Rusty Tankard like?");
    expect(await candidates()).toEqual([]);
  });

  test("on: a session is recorded as one candidate — the lines, the lore that reached the prompt, a hashed player", async () => {
    expect((await setRec({ recordConversations: true, recordSampleRate: 1 })).body).toEqual({ recordConversations: true, recordSampleRate: 1 });
    const a = await say("player-ada-7", "What is the Rusty Tankard like?");
    const b = await say("player-ada-7", "Who brews the porter?");
    const list = await candidates();
    expect(list).toHaveLength(1);
    const c = list[0];
    expect(c).toMatchObject({ mindId: garrick, character: "Garrick Thorne", open: true, turnCount: 2 });
    expect(c.turns.map((x: any) => [x.player, x.reply])).toEqual([
      ["What is the Rusty Tankard like?", a.response],
      ["Who brews the porter?", b.response],
    ]);
    expect(c.turns[0].lore.map((l: any) => l.documentName)).toContain("The Rusty Tankard");
    // The player id is nowhere in what was kept: a salted hash stands in.
    expect(c.playerHash).toMatch(/^[0-9a-f]{64}$/);
    const raw = t.app.db.query("SELECT * FROM lore_test_candidates").all();
    expect(JSON.stringify(raw)).not.toContain("player-ada-7");
    // Streamed replies are interactions too.
    await say("player-bo", "What is the Rusty Tankard like?", { accept: "text/event-stream" });
    // kept once the stream has ended, whenever the box gets to it: waited for (the test's timeout bounds it)
    while ((await candidates()).length < 2) await Bun.sleep(10);
    expect((await candidates()).map((x) => x.turnCount).sort()).toEqual([1, 2]);
    await clear();
  });

  test("bounded: a candidate keeps at most MAX_RECORDED_TURNS turns and cuts long lines", () => {
    const turn = (player: string, sessionStart: boolean) =>
      recordTurn(t.app.ctx, { projectId, mindId: garrick, playerId: "p-long", player, reply: "r".repeat(3000), sessionStart, lore: [], promptText: "" });
    expect(turn("first", true)).toBe(true);
    for (let i = 1; i < MAX_RECORDED_TURNS; i++) expect(turn(`line ${i}`, false)).toBe(true);
    expect(turn("one too many", false)).toBe(false);
    const rows = t.app.db.query<{ turns: string; turn_count: number; open: number }, []>("SELECT turns, turn_count, open FROM lore_test_candidates").all();
    expect(rows.map((r) => [r.turn_count, r.open])).toEqual([[MAX_RECORDED_TURNS, 0]]);
    expect(JSON.parse(rows[0].turns)[0].reply.length).toBe(MAX_LINE_CHARS);
    // A new session of the same conversation is sampled afresh, into a new candidate.
    expect(turn("next evening", true)).toBe(true);
    expect(t.app.db.query("SELECT COUNT(*) AS n FROM lore_test_candidates").get()).toEqual({ n: 2 });
  });

  test("sampled per session: rate 0 records nothing, 0.5 about half of 40 sessions", async () => {
    await clear();
    await setRec({ recordSampleRate: 0 });
    await say("p-zero", "What is the Rusty Tankard like?");
    expect(await candidates()).toEqual([]);
    await setRec({ recordSampleRate: 0.5 });
    for (let i = 0; i < 40; i++) await say(`p-rate-${i}`, "Hello");
    // Binomial(40, 0.5) falls outside 8..32 with probability below 1e-4.
    const n = (await candidates()).length;
    expect(n).toBeGreaterThanOrEqual(8);
    expect(n).toBeLessThanOrEqual(32);
    await clear();
    await setRec({ recordSampleRate: 1 });
  });

  test("never for scratch or test runs: lore-test runs, the playground, scenes and event reactions", async () => {
    const run = await t.call("POST", `${base()}/runs`, {
      key: admin,
      body: { files: [{ file: "one.test.yaml", text: "tests:\n  - { name: inn, mind: garrick, turns: [{ say: What is the Rusty Tankard like? }] }\n" }] },
    });
    expect(run.status).toBe(202);
    await t.app.scheduler.trigger(LORE_TEST_JOB);
    expect((await t.call("GET", `${base()}/runs/${run.body.id}`, { key: admin })).body.status).toBe("PASSED");
    const pg = await t.call("POST", `/admin/v1/projects/${projectId}/playground`, { key: admin, body: { text: "Hello", entityMindId: garrick, playerId: "p-play" } });
    expect(pg.status).toBe(200);
    const scene = await t.call("POST", "/v1/scenes", { key: server, body: { minds: [garrick], playerId: "p-scene" } });
    expect((await t.call("POST", `/v1/scenes/${scene.body.sceneId}/turn`, { key: server, body: { text: "Hello all" } })).status).toBe(200);
    const react = await t.call("POST", `/v1/npc/${garrick}/react`, { key: server, body: { reason: "A stranger walks in", playerId: "p-react", stream: true } });
    expect(react.status).toBe(200);
    await Bun.sleep(50);
    expect(await candidates()).toEqual([]);
  });

  test("accept: the candidate becomes a case with suggested expectations, valid against the project, and leaves the queue", async () => {
    await say("p-accept", "What is the Rusty Tankard like?");
    const [c] = await candidates();
    const r = await t.call("POST", `${base()}/candidates/${c.id}/accept`, { key: admin });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: c.id, accepted: true });
    expect(r.body.caseYaml).toContain(`mind: "${garrick}"`);
    expect(r.body.caseYaml).toContain(`say: "What is the Rusty Tankard like?"`);
    expect(r.body.caseYaml).toMatch(/knowsFrom: \[.*"The Rusty Tankard".*\]/);
    const valid = await t.call("POST", `${base()}/validate`, { key: admin, body: { files: [{ file: "accepted.test.yaml", text: `tests:\n${r.body.caseYaml}` }] } });
    expect(valid.status).toBe(200);
    expect(valid.body.valid).toBe(true);
    expect((await t.call("GET", `${base()}/candidates/${c.id}`, { key: admin })).status).toBe(404);
    expect((await t.call("POST", `${base()}/candidates/${c.id}/accept`, { key: admin })).body).toEqual({ error: "Candidate not found" });
  });

  test("reject deletes; another project's candidate is not found; a wrong key is refused", async () => {
    await say("p-reject", "What is the Rusty Tankard like?");
    const [c] = await candidates();
    for (const [method, path] of [
      ["GET", `/candidates/${c.id}`],
      ["POST", `/candidates/${c.id}/accept`],
      ["DELETE", `/candidates/${c.id}`],
    ] as const) {
      const cross = await t.call(method, `${base(otherProject)}${path}`, { key: admin });
      expect({ status: cross.status, body: cross.body }).toEqual({ status: 404, body: { error: "Candidate not found" } });
      for (const key of [server, otherServer, "wrong-token", null]) expect((await t.call(method, `${base()}${path}`, { key })).status).toBe(401);
    }
    for (const key of [server, otherServer, null]) {
      expect((await t.call("GET", `${base()}/candidates`, { key })).status).toBe(401);
      expect((await t.call("PATCH", `${base()}/recording`, { key, body: { recordConversations: false } })).status).toBe(401);
    }
    expect(await candidates(otherProject)).toEqual([]);
    expect((await t.call("GET", `${base()}/recording`, { key: admin })).body.recordConversations).toBe(true);
    expect((await t.call("GET", `${base()}/candidates/${c.id}`, { key: admin })).status).toBe(200);
    expect((await t.call("DELETE", `${base()}/candidates/${c.id}`, { key: admin })).body).toEqual({ id: c.id, deleted: true });
    expect((await t.call("DELETE", `${base()}/candidates/${c.id}`, { key: admin })).status).toBe(404);
    expect((await t.call("GET", `${base("proj_nope")}/candidates`, { key: admin })).body).toEqual({ error: "Project not found" });
  });

  test("bad settings: 400 with every problem, nothing written", async () => {
    for (const [body, details] of [
      [{ recordSampleRate: 2 }, ["recordSampleRate: must be a number from 0 to 1"]],
      [{ recordConversations: "yes", colour: 1 }, ["recordConversations: must be true or false", "colour: unknown setting (known: recordConversations, recordSampleRate)"]],
      [[true], ["body: must be a JSON object"]],
    ] as const) {
      const r = await setRec(body);
      expect({ status: r.status, body: r.body }).toEqual({ status: 400, body: { error: "Invalid request", details } });
    }
    expect((await t.call("GET", `${base()}/recording`, { key: admin })).body).toEqual({ recordConversations: true, recordSampleRate: 1 });
  });

  test("erasing a player removes their candidates, and only theirs", async () => {
    await clear();
    await say("p-erase", "What is the Rusty Tankard like?");
    await say("p-keep", "What is the Rusty Tankard like?");
    expect(await candidates()).toHaveLength(2);
    const erased = await t.call("DELETE", `/admin/v1/projects/${projectId}/players/p-erase/memories`, { key: admin });
    expect(erased.status).toBe(200);
    const left = await candidates();
    expect(left).toHaveLength(1);
    expect(left[0].playerHash).toBe(playerHash(recordingRow(t.app.db, projectId)!.salt, "p-keep"));
    // Another project salts its own: the same player id is another hash there.
    setRecording(t.app.ctx, otherProject, { recordConversations: true });
    expect(playerHash(recordingRow(t.app.db, otherProject)!.salt, "p-keep")).not.toBe(left[0].playerHash);
  });
});
