// Through the production path (POST /v1/npc/interact, JSON and SSE, a remote pool): a model that writes the
// tail's JSON into its spoken line has its words cut there, and the tail is still generated and settled. The
// random-weight tiny model never writes `{"actions":` of its own accord, so the backend is a small
// OpenAI-compatible server that says what Qwen2.5-Coder-0.5B was seen to say (BENCHMARKS "Typed turns: deciding
// not to act"); it stands in for the model only: routing, streaming, the reply guard, the tail request and the
// settlement are the server's own.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { buildWorld, type World } from "../support/world.ts";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import type { BehaviourInput } from "../../src/behaviour/behaviourModel.ts";

setDefaultTimeout(120_000);

const BEHAVIOUR: BehaviourInput = {
  emotions: ["neutral", "happy"],
  actions: [{ name: "wave", description: "Wave at the player." }],
};
/** What the model says: its words, then the block's example copied into them, then more. */
const SAID = 'Well met, friend. {"actions":[{"name":"wave"}],"emotion":"happy","intensity":6} And good day to you.';
/** The backend's answer when asked for the behaviour alone (a backend of kind "openai" is asked, then validated). */
const TAIL = '{"actions":[{"name":"wave","params":{}}],"emotion":"happy","intensity":6}';

const enc = new TextEncoder();
const sse = (o: unknown) => enc.encode(`data: ${JSON.stringify(o)}\n\n`);

interface Fake {
  url: string;
  /** characters of SAID streamed before the client went away or the words ended */
  streamed: number[];
  asked: any[];
  stop(): void;
}

function fakeModel(): Fake {
  const f: Fake = { url: "", streamed: [], asked: [], stop: () => {} };
  const server = Bun.serve({
    port: 0,
    idleTimeout: 30,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === "/health" || path === "/v1/models") return Response.json({ status: "ok", data: [{ id: "m" }] });
      const body = (await req.json()) as any;
      const last = body.messages?.at(-1)?.content ?? "";
      const asking = typeof last === "string" && last.startsWith("Now write only your behaviour");
      if (asking) f.asked.push(body);
      const text = asking ? TAIL : SAID;
      let i = 0;
      const n = f.streamed.push(0) - 1;
      return new Response(
        new ReadableStream<Uint8Array>({
          async pull(c) {
            // three characters a chunk, a little apart: the server stops reading once the words are cut
            if (i < text.length) {
              c.enqueue(sse({ choices: [{ index: 0, delta: { content: text.slice(i, i + 3) }, finish_reason: null }] }));
              i += 3;
              if (!asking) f.streamed[n] = Math.min(i, text.length);
              await Bun.sleep(2);
              return;
            }
            c.enqueue(sse({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }));
            c.enqueue(sse({ choices: [], usage: { prompt_tokens: 200, completion_tokens: Math.ceil(text.length / 4) } }));
            c.enqueue(enc.encode("data: [DONE]\n\n"));
            c.close();
          },
        }),
        { headers: { "content-type": "text/event-stream" } },
      );
    },
  });
  f.url = `http://127.0.0.1:${server.port}`;
  f.stop = () => server.stop(true);
  return f;
}

let fake: Fake;
let t: TestApp;
let w: World;
beforeAll(async () => {
  fake = fakeModel();
  t = await createTestApp({
    generation: "remote",
    backends: [{ url: fake.url, model: "m", apiKey: null, maxConcurrent: 2, weight: 1, timeoutMs: 30_000, kind: "openai" }],
    contextSize: 4096,
    maxReplyTokens: 64,
  });
  w = buildWorld(t.app.ctx as any, "Thornhaven", { index: "none" });
  await t.app.scheduler.trigger("indexer");
  const admin = ensureAdminToken(t.app.db).adminToken;
  const r = await t.call("PATCH", `/admin/v1/projects/${w.projectId}/minds/${w.minds.garrick}`, { key: admin, body: { behaviour: BEHAVIOUR } });
  expect(r.status).toBe(200);
});
afterAll(async () => {
  await t?.close();
  fake?.stop();
});

const body = (playerId: string) => ({ text: "Hello there, innkeeper.", entityMindId: w.minds.garrick, playerId });
const WORDS = "Well met, friend.";

describe("the tail the model wrote into its words", () => {
  test("JSON: the reply is the words before it; the tail is asked for after those words and settles", async () => {
    const r = await t.call("POST", "/v1/npc/interact", { key: w.keys.server, body: body("p-json") });
    expect(r.status).toBe(200);
    expect(r.body.response).toBe(WORDS);
    expect(r.body.metadata.behaviour.emotion).toEqual({ name: "happy", intensity: 0.6 });
    expect(r.body.metadata.behaviour.actions.map((a: any) => a.name)).toEqual(["wave"]);
    // the tail continued from the cut words, not from the JSON the model had started
    const asked = fake.asked.at(-1);
    expect(asked.messages.at(-2)).toMatchObject({ role: "assistant", content: WORDS });
    // the words stopped at the first sign: the model was not read to the end of its line
    expect(fake.streamed[fake.streamed.length - 2]).toBeLessThan(SAID.length);
  });

  test("SSE: no token event carries any of it, and emotion and action follow as usual", async () => {
    const res = await t.app.handle(
      new Request("http://localhost/v1/npc/interact", {
        method: "POST",
        headers: { authorization: `Bearer ${w.keys.server}`, "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify(body("p-sse")),
      }),
    );
    expect(res.status).toBe(200);
    const events = (await res.text()).trim().split("\n\n").map((block) => {
      const [ev, data] = block.split("\n");
      return { event: ev.replace("event: ", ""), data: JSON.parse(data.replace("data: ", "")) };
    });
    const said = events.filter((e) => e.event === "token").map((e) => e.data.text).join("");
    expect(said).toBe(WORDS);
    expect(events.map((e) => e.event).filter((k) => k !== "token")).toEqual(["emotion", "action", "done"]);
    expect(events.at(-1)!.data.metadata.behaviour.actions.map((a: any) => a.name)).toEqual(["wave"]);
  });
});
