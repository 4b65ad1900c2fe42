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

  // Each property compares two runs on the same CPU (same kernels, same last bits), so it holds on any CPU, whatever
  // the reply. Two seeds, because "more than one piece" needs a reply longer than one token: 12 of 12 seeds (1-12)
  // gave 9-40 pieces here (Xeon, AVX-512), so both seeds falling short is out of reach.
  test("seeds 7 and 8, temperature 0.8: streamed pieces = the streaming reply = the non-streaming reply", async () => {
    const pieceCounts: number[] = [];
    for (const seed of [7, 8]) {
      const pieces: string[] = [];
      const req = { conversationKey: "same", messages: MESSAGES, maxTokens: 40, temperature: 0.8, seed };
      const streamed = await fresh((llm) => llm.generate({ ...req, onToken: (p) => pieces.push(p) }));
      const plain = await fresh((llm) => llm.generate(req));
      expect(pieces.join("").trim()).toBe(streamed.text);
      expect(plain.text).toBe(streamed.text);
      expect(plain.completionTokens).toBe(streamed.completionTokens);
      expect(plain.finishReason).toBe(streamed.finishReason);
      pieceCounts.push(streamed.text.length > 0 ? pieces.length : 0);
    }
    expect(Math.max(...pieceCounts)).toBeGreaterThan(1);
  }, 1_800_000);

  // Which seeds reach EOS differs per CPU (this Xeon: seed 3 of "Good evening!" ran to the cap, stopping in 21 of 30
  // seeds; another CPU stopped there). A question that asks for one short sentence stopped on its own in 137 of 140
  // seeds (1-100 and 1-40, temperature 0.2, here): at a rate of even 90%, fewer than 5 of 8 is a 0.5% event (at 98%,
  // 0.001%); broken end-of-turn handling stops none (every reply would run to the 200-token cap).
  test("a short answer stops at the end of the turn (EOS), not at maxTokens: at least 5 of 8 seeds", async () => {
    const llm = await LlmEngine.load({ modelPath: fx!.smol, threads: REAL_THREADS, parallel: 1, contextSize: 1024 });
    const outcomes: string[] = [];
    let stopped = 0;
    try {
      for (let seed = 1; seed <= 8; seed++) {
        const question = { role: "user" as const, content: "What is your name? Answer in one short sentence." };
        const r = await llm.generate({ conversationKey: "eos", messages: [MESSAGES[0], question], maxTokens: 200, temperature: 0.2, seed });
        // Whatever the sample: it ended on its own or at the cap, never elsewhere.
        expect(["stop", "length"]).toContain(r.finishReason);
        if (r.finishReason === "length") expect(r.completionTokens).toBeGreaterThanOrEqual(200);
        if (r.finishReason === "stop" && r.completionTokens < 200 && r.text.length > 0) stopped++;
        outcomes.push(`${r.finishReason}@${r.completionTokens}`);
      }
    } finally {
      await llm.dispose();
    }
    console.log(`[realmodel] EOS: ${stopped}/8 seeds stopped on their own (${outcomes.join(" ")})`);
    expect(stopped).toBeGreaterThanOrEqual(5);
  }, 1_800_000);
});

describe.skipIf(!fx)("SSE over HTTP on real weights", () => {
  let w: RealWorld;
  beforeAll(async () => {
    w = await realWorld(fx!, fx!.smol, { maxReplyTokens: 48 });
  }, 120_000);
  afterAll(() => w?.t.close());

  // Unseeded (the interact body has no seed), so every run is a fresh draw on any CPU: each reply must match its
  // token events and carry no markers (properties of the construction, whatever the sample), and at least one of
  // three players must get a non-empty reply. An empty one (the first text is a stop trigger) was about one in fifty
  // before the engine resampled such replies (BENCHMARKS "Quality on real models"): three in a row is below 1e-5.
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
