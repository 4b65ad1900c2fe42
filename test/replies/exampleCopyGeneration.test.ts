// The exampleCopy check on real generation: llama.cpp (the tiny random-weight GGUF the suite writes) through the reply
// guard. A random model copies no example of its own accord, so the example is made from what the model says: a
// turn drawn once without an example, then drawn again (same seed, same cached prompt, so the same first sample) with
// that reply's opening words as the example's answer. The second draw's first sample is then a copy: the guard must
// say so, draw another sample, and never return a copy while a sample without one was drawn. No sampled text is
// asserted, so it holds on any CPU.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { generateReply } from "../../src/npc/replies/generateReply.ts";
import { words } from "../../src/npc/replies/wordOverlap.ts";
import type { ReplyContext } from "../../src/npc/replies/detectors.ts";
import type { GenerateRequest, GenerationBackend } from "../../src/generation/types.ts";

setDefaultTimeout(600_000);

const MODEL = ensureTinyModel();
const base: ReplyContext = {
  playerLine: "Who keeps the tavern?",
  mindName: "Garrick",
  otherNames: [],
  structuralLines: [],
  narrativeLines: [],
  noteNames: [],
  previousReply: null,
  maxSentences: 8,
  secrets: [],
};
const req = (seed: number): GenerateRequest => ({
  conversationKey: "example-copy",
  messages: [{ role: "system", content: "You are Garrick, who keeps the tavern." }, { role: "user", content: "[Player]\nWho keeps the tavern?" }],
  maxTokens: 16,
  minTokens: 8,
  temperature: 0.8,
  seed,
});

describe("exampleCopy on real generation (tiny model)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ model: MODEL, parallel: 1, contextSize: 1024, maxReplyTokens: 16, threads: 1 });
  }, 180_000);
  afterAll(() => t?.close());

  test("a sample that is the example's answer is caught and sampled again; a copy is returned only when every sample is one", async () => {
    const gen: GenerationBackend = t.app.ctx.generation!;
    let copiesCaught = 0;
    let cleanReturned = 0;
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      await gen.generate(req(seed)); // the prompt cached, so both draws below start from the same state
      const first = await generateReply(gen, req(seed), base);
      const said = words(first.result.text);
      // a first sample the guard let through whole, long enough to be an example's answer
      if (first.report.chosen !== 1 || first.report.attempts[0].problems.length || said.length < 3) continue;
      const answer = said.slice(0, 6).join(" ");
      const { result, report } = await generateReply(gen, req(seed), { ...base, example: { lines: [answer], known: [] } });
      expect(report.attempts[0].problems.map((p) => p.kind)).toContain("exampleCopy");
      expect(report.attempts.length).toBeGreaterThan(1);
      copiesCaught++;
      const chosen = report.attempts[report.chosen - 1];
      const copied = chosen.problems.some((p) => p.kind === "exampleCopy");
      if (report.attempts.some((a) => !a.early && !a.problems.some((p) => p.kind === "exampleCopy"))) expect(copied).toBe(false);
      if (!copied) {
        cleanReturned++;
        expect(words(result.text).join(" ")).not.toContain(answer);
      }
    }
    expect(copiesCaught).toBeGreaterThanOrEqual(2);
    expect(cleanReturned).toBeGreaterThanOrEqual(1);
  });
});
