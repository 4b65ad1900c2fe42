import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { LlmEngine } from "../../src/llm/LlmEngine.ts";
import type { ChatMessage } from "../../src/llm/types.ts";
import { REAL_THREADS, realFixtures } from "./realFixtures.ts";
import { realWorld, type RealWorld } from "./realWorld.ts";

// Streaming and non-streaming are one code path with and without onToken: on real weights, with a real
// tokenizer whose pieces split words, the streamed pieces must add up to exactly the final reply.
const fx = realFixtures();

const MESSAGES: ChatMessage[] = [
  {
    role: "system",
    content:
      "You are Garrick Thorne, Innkeeper of the Rusty Tankard, a character in a game. Stay in character at all times and answer as Garrick Thorne would, in the first person, in a few sentences.",
  },
  { role: "user", content: "[Lore]\nAbout The Rusty Tankard: The house porter, Wend Water, is dark, bitter and strong.\n\n[Player]\nWhat should I drink tonight?" },
];

describe.skipIf(!fx)("streaming on real weights (SmolLM2-135M-Instruct)", () => {
  // Each generation on a freshly loaded engine: the same prompt from the same (empty) KV state, so only the
  // streaming callback differs. (Reusing a cached prefix changes the batch shapes of the prompt evaluation,
  // and with them the last bits of the logits: a sampled reply may then differ even with the same seed.)
  const fresh = async <T>(run: (llm: LlmEngine) => Promise<T>): Promise<T> => {
    const llm = await LlmEngine.load({ modelPath: fx!.smol, threads: REAL_THREADS, parallel: 1, contextSize: 1024 });
    try {
      return await run(llm);
    } finally {
      await llm.dispose();
    }
  };

  test("seed 7, temperature 0.8: streamed pieces = the streaming reply = the non-streaming reply", async () => {
    const pieces: string[] = [];
    const req = { conversationKey: "same", messages: MESSAGES, maxTokens: 40, temperature: 0.8, seed: 7 };
    const streamed = await fresh((llm) => llm.generate({ ...req, onToken: (p) => pieces.push(p) }));
    const plain = await fresh((llm) => llm.generate(req));
    expect(streamed.text.length).toBeGreaterThan(0);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join("").trim()).toBe(streamed.text);
    expect(plain.text).toBe(streamed.text);
    expect(plain.completionTokens).toBe(streamed.completionTokens);
  }, 1_800_000);

  test("a short answer stops at the end of the turn (EOS), not at maxTokens", async () => {
    const r = await fresh((llm) =>
      llm.generate({ conversationKey: "eos", messages: [MESSAGES[0], { role: "user", content: "Good evening!" }], maxTokens: 200, temperature: 0.2, seed: 3 }),
    );
    expect(r.finishReason).toBe("stop");
    expect(r.completionTokens).toBeLessThan(200);
    expect(r.text.length).toBeGreaterThan(0);
  }, 1_800_000);
});

describe.skipIf(!fx)("SSE over HTTP on real weights", () => {
  let w: RealWorld;
  beforeAll(async () => {
    w = await realWorld(fx!, fx!.smol, { maxReplyTokens: 48 });
  }, 120_000);
  afterAll(() => w?.t.close());

  // Unseeded (the interact body has no seed): a small model's reply is empty about one time in fifty when its
  // first text is one of our stop triggers (BENCHMARKS "Quality on real models"). Every reply must match its
  // token events; at least one of three players must get a non-empty one.
  test("token events add up to the done event's reply, which is clean and non-empty", async () => {
    const replies: string[] = [];
    for (let attempt = 1; attempt <= 3 && !replies.some((r) => r.length > 0); attempt++) {
      const res = await w.t.app.handle(
        new Request("http://localhost/v1/npc/interact", {
          method: "POST",
          headers: { authorization: `Bearer ${w.serverKey}`, "content-type": "application/json", accept: "text/event-stream" },
          body: JSON.stringify({ text: "What do you brew here?", entityMindId: w.minds.garrick, playerId: `sse-${attempt}` }),
        }),
      );
      expect(res.status).toBe(200);
      const raw = await res.text();
      const events = raw.split("\n\n").filter(Boolean).map((block) => {
        const ev = /^event: (.*)$/m.exec(block)?.[1];
        const data = block.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
        return { ev, data };
      });
      const done = events.find((e) => e.ev === "done");
      expect(done).toBeDefined();
      const reply = JSON.parse(done!.data).response as string;
      const tokens = events.filter((e) => e.ev === "token").map((e) => JSON.parse(e.data).text ?? JSON.parse(e.data));
      expect(tokens.join("").trim()).toBe(reply);
      expect(reply).not.toMatch(/<\|im_(start|end)\|>|\[Player\]|\[Lore\]/);
      replies.push(reply);
    }
    if (replies.length > 1) console.warn(`[realmodel] SSE: ${replies.length - 1} empty repl${replies.length > 2 ? "ies" : "y"} before a non-empty one`);
    expect(replies.some((r) => r.length > 0)).toBe(true);
  }, 1_800_000);
});
