// The reply guard with the offer cut on real llama.cpp (the tiny random-weight GGUF the suite writes): whatever the
// model samples, streamed or not, the client is sent exactly the reply returned, and no reply returned carries an
// assistant's offer after what it said. Properties of every sample, so they hold for any seed on any CPU.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import type { ReplyContext } from "../../src/npc/replies/detectors.ts";
import { generateReply, GUARD_POLICY } from "../../src/npc/replies/generateReply.ts";
import { offerCut } from "../../src/npc/replies/offerCut.ts";

setDefaultTimeout(300_000);

// The offer's words are pieces of the tiny vocab, so its samples can hold them.
const MODEL = ensureTinyModel(undefined, { extraWords: ["How", "assist", "help", "today?", "Rosalind", "Tey!", "Warden"] });

const ctx: ReplyContext = {
  playerLine: "Hello, Warden. My name is Rosalind Tey.",
  mindName: "Tibor Haska",
  otherNames: [],
  structuralLines: ["You are Tibor Haska, Warden of the Cindervale Watch, a character in a game."],
  hintLines: [],
  narrativeLines: [],
  noteNames: [],
  previousReply: null,
  maxSentences: 3,
  secrets: [],
};

describe("the offer cut on a real engine", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ model: MODEL, parallel: 1, contextSize: 1024, maxReplyTokens: 24, threads: 1 });
  }, 180_000);
  afterAll(() => t?.close());

  test("streamed or not, over seeds: what the client was sent is the reply, and no reply closes with an offer", async () => {
    let replies = 0;
    for (const seed of [1, 2, 3, 4, 5, 6])
      for (const streaming of [false, true]) {
        const sent: string[] = [];
        const { result, report } = await generateReply(
          t.app.ctx.generation!,
          {
            conversationKey: `offer-${seed}-${streaming}`,
            messages: [{ role: "system", content: ctx.structuralLines[0] }, { role: "user", content: ctx.playerLine }],
            maxTokens: 24,
            temperature: 0.9,
            seed,
            minTokens: 4,
            ...(streaming ? { onToken: (p: string) => sent.push(p) } : {}),
          },
          ctx,
          GUARD_POLICY,
        );
        expect(report.attempts.length).toBeGreaterThanOrEqual(1);
        expect(report.attempts.length).toBeLessThanOrEqual(GUARD_POLICY.tries);
        if (streaming) expect(sent.join("")).toBe(result.text);
        expect(offerCut(result.text)).toBeNull();
        if (report.stoppedBy === "offer") expect(result.text.trim()).not.toBe("");
        if (result.text.trim()) replies++;
      }
    expect(replies).toBeGreaterThan(0);
  });
});
