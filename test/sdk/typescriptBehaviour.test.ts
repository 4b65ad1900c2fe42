import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { LoreholdClient, LoreholdError, type InteractStreamEvent } from "../../sdk/typescript/src/index.ts";
import { writeBehaviour } from "../../src/behaviour/behaviourStore.ts";
import { writeTx } from "../../src/db/openDatabase.ts";
import { startLiveServer, type LiveServer } from "./liveServer.ts";

// real llama.cpp (tiny GGUF) behind a real socket, on shared cores: a typed turn's tail costs tens of seconds
setDefaultTimeout(300_000);

let s: LiveServer;
let server: LoreholdClient;

beforeAll(async () => {
  s = await startLiveServer();
  // the client's own 60 s default is a game's budget; a typed turn on cores shared with other suites can take longer
  server = new LoreholdClient({ baseUrl: s.baseUrl, apiKey: s.world.keys.server, timeoutMs: 280_000 });
  // A choice, not an integer: random weights write an integer's digits as long as the tail's budget lets them.
  const behaviour = {
    emotions: ["calm", "happy"],
    actions: [{ name: "wave", description: "Wave at the player." }, { name: "pour", description: "Pour a drink.", params: { type: "object" as const, properties: { drink: { type: "string" as const, enum: ["ale", "cider"] } } } }],
    trust: { min: -5, max: 5, labels: [{ min: -5, label: "wary" }, { min: 2, label: "friendly" }] },
  };
  writeTx(s.app.ctx.db, () => writeBehaviour(s.app.ctx.db, s.world.projectId, s.world.minds.garrick, behaviour, new Date().toISOString()));
}, 60_000);
afterAll(() => s.close());

describe("typed turns through the TypeScript client", () => {
  test("interactStream yields emotion and action events after the tokens, the same as the reply's metadata.behaviour", async () => {
    // Random weights choose any tail the grammar allows: what is asserted holds of every turn by construction.
    for (let i = 0; i < 2; i++) {
      const events: InteractStreamEvent[] = [];
      for await (const ev of server.interactStream({ text: "Evening!", entityMindId: s.world.minds.garrick, playerId: `sdk-typed-${i}` })) events.push(ev);
      const kinds = events.map((e) => e.type);
      const last = events.at(-1)!;
      if (last.type !== "reply") throw new Error("the stream must end with the reply");
      const b = last.reply.metadata.behaviour!;
      const tokens = kinds.filter((k) => k === "token").length;
      expect(kinds).toEqual([...Array(tokens).fill("token"), "emotion", ...b.actions.map(() => "action"), "reply"]);
      expect(events[tokens]).toEqual({ type: "emotion", emotion: b.emotion });
      expect(events.slice(tokens + 1, -1)).toEqual(b.actions.map((action) => ({ type: "action", action })));
      expect(["calm", "happy"]).toContain(b.emotion.name);
      for (const a of b.actions) expect(["wave", "pour"]).toContain(a.name);
      expect(b.trust?.label).toMatch(/^(wary|friendly)$/);
    }
  });

  test("actionResults and availableActions go with interact; an unknown id is a warning, not a failure", async () => {
    const r = await server.interact({
      text: "Thanks for the drink.",
      entityMindId: s.world.minds.garrick,
      playerId: "sdk-results",
      availableActions: ["wave"],
      actionResults: [{ id: "act_unknown", status: "completed", detail: "the player drank it" }],
    });
    expect(r.success).toBe(true);
    for (const a of r.metadata.behaviour!.actions) expect(a.name).toBe("wave");
    expect(JSON.stringify(r.metadata)).toContain("act_unknown");
  });

  test("getTrust / setTrust: the initial value, a set value with its label; out of range is a 400 with details", async () => {
    const first = await server.getTrust(s.world.minds.garrick, "sdk-trust");
    expect(first).toMatchObject({ value: 0, stored: false, min: -5, max: 5 });
    expect(await server.setTrust(s.world.minds.garrick, "sdk-trust", 3)).toMatchObject({ value: 3, label: "friendly", stored: true });
    expect((await server.getTrust(s.world.minds.garrick, "sdk-trust")).value).toBe(3);
    const bad = await server.setTrust(s.world.minds.garrick, "sdk-trust", 99).catch((e) => e);
    expect(bad).toBeInstanceOf(LoreholdError);
    expect(bad.status).toBe(400);
    const other = await server.getTrust(s.world.minds.elena, "sdk-trust").catch((e) => e);
    expect(other).toBeInstanceOf(LoreholdError);
  });
});
