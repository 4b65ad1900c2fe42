import { describe, expect, test } from "bun:test";
import type { GenerateRequest } from "../../src/generation/types.ts";
import { replyProblems } from "../../src/npc/replies/detectors.ts";
import { generateReply, GUARD_POLICY } from "../../src/npc/replies/generateReply.ts";
import { mayOffer, offerCut, offerIn } from "../../src/npc/replies/offerCut.ts";
import { ReplyShaper } from "../../src/npc/replies/ReplyShaper.ts";
import { sentenceEnds } from "../../src/npc/replies/sentences.ts";
import { pieces, replyContext, scripted, turnRequest } from "../support/scriptedTurn.ts";

const ctx = replyContext({
  playerLine: "Hello, Warden. My name is Rosalind Tey.",
  mindName: "Tibor Haska",
  structuralLines: ["You are Tibor Haska, Warden of the Cindervale Watch, a character in a game."],
  hintLines: [],
  noteNames: ["The Cindervale Watch"],
  maxSentences: 3,
});

const req = (onToken?: (t: string) => void): GenerateRequest => turnRequest({ seed: 11, ...(onToken ? { onToken } : {}) });
/** What the cut leaves of a reply (the whole reply when nothing is cut). */
const cut = (text: string) => {
  const at = offerCut(text);
  return at === null ? text : text.slice(0, at).trimEnd();
};

describe("offerIn: a sentence that is an assistant's offer of help, not a character's", () => {
  const table: [string, boolean][] = [
    // Qwen2.5-Coder-0.5B's replies (BENCHMARKS.md, the held-out greeting and the tuning worlds' greetings)
    ["How can I assist you today?", true],
    ["How can I help you today?", true],
    ["How may I assist you?", true],
    ["How can I assist you with the ferry?", true],
    ["How can I be of assistance?", true],
    ["I'm glad I could assist you today.", true],
    ["I'm glad I could help.", true],
    ["I'm here to help you with your projects …", true],
    ["Is there anything else I can help you with?", true],
    ["Is there anything else you'd like to know about the watch?", true],
    ["Let me know if you have any other questions.", true],
    ["Feel free to ask if you need anything else.", true],
    ["If you have any more questions, feel free to ask!", true],
    ["What can I assist you with?", true],
    ["How can I help you today?", true],
    // a character's own words: a shopkeeper's offer, a question about the world, a welcome
    ["What can I do for you?", false],
    ["Is there anything else I can do for you?", false],
    ["How can I be of service to you?", false],
    ["How can I help you find the ferry?", false],
    ["How may I serve you, my lord?", false],
    ["How can I forget that winter?", false],
    ["If you have any questions, ask the reeve.", false],
    ["Let me know when you're ready to sail.", false],
    ["Is there anything you'd like to buy?", false],
    ["Anything else, and it's three crowns more.", false],
    ["I'm here to keep the gate, not to chat.", false],
    ["I'm glad to help a friend of the Watch.", false],
    ["Welcome to Cindervale, Rosalind.", false],
    ["What brings you to the Watch?", false],
  ];
  for (const [sentence, want] of table) test(`${want ? "offer" : "in character"}: ${JSON.stringify(sentence)}`, () => expect(offerIn(sentence) !== null).toBe(want));
});

describe("offerCut: a reply's closing offer is cut, what stood before it kept", () => {
  const table: [string, string][] = [
    // the held-out greeting, all four seeds of the sixth round
    ["Hi Rosalind Tey! How can I assist you today?", "Hi Rosalind Tey!"],
    ["Good morning, ROSALIND! How can I help you today?", "Good morning, ROSALIND!"],
    ["Good morning, Rosalind! How can I help you today?", "Good morning, Rosalind!"],
    ["Hello Rosalind Tey! How can I assist you today?", "Hello Rosalind Tey!"],
    // the tuning worlds' greetings
    ["Hello! How can I assist you today?", "Hello!"],
    ["Hello, Hamish Lowe! I'm glad I could assist you today.", "Hello, Hamish Lowe!"],
    ["The ferry crosses at dawn and dusk. The fare is two pennies. Let me know if you have any other questions.", "The ferry crosses at dawn and dusk. The fare is two pennies."],
    ["Hello, Silas! I'm here to help you. What would you like to know today?", "Hello, Silas!"],
    ["Oh my, Sir! I'm glad I could help you. Silas, I'm an aspiring scholar.", "Oh my, Sir!"],
    // the held-out memory script's second line: a character's offer, kept
    ["Mowday sounds like a good time for me to celebrate my fine. Is there anything else I can do for you?", "Mowday sounds like a good time for me to celebrate my fine. Is there anything else I can do for you?"],
    // what follows the offer goes with it (the held-out memory script's farewell, before the cut)
    ["Goodbye! I'm glad I could help. Remember to keep your watchmen safe.", "Goodbye!"],
    ["Welcome, Kit. How can I help you today? The river is high this week.", "Welcome, Kit."],
    // nothing stands before it: left to the guard (the meta detector counts it)
    ["How can I assist you today?", "How can I assist you today?"],
    // in character: nothing is cut
    ["Welcome to the Salt Kettle, Wenna. What can I do for you?", "Welcome to the Salt Kettle, Wenna. What can I do for you?"],
    ["Rosalind Tey. The fine is seven crowns. How can I help you find the money?", "Rosalind Tey. The fine is seven crowns. How can I help you find the money?"],
  ];
  for (const [reply, want] of table)
    test(JSON.stringify(reply.slice(0, 60)), () => {
      expect(cut(reply)).toBe(want);
      if (want !== reply) expect(replyProblems(want, ctx)).toEqual([]);
    });

  test("a stream holds a sentence after the first while it may still become an offer", () => {
    const hold = (t: string) => mayOffer(t, sentenceEnds(t, { final: false }));
    expect(hold("Hi Rosalind Tey! How")).toBe(true);
    expect(hold("Hi Rosalind Tey! How can I")).toBe(true);
    expect(hold("Hi Rosalind Tey! Let me kn")).toBe(true);
    expect(hold("Hi Rosalind Tey! Hows")).toBe(false);
    expect(hold("Hi Rosalind Tey! The fine")).toBe(false);
    // the first sentence is never cut, so never held for it
    expect(hold("How can I")).toBe(false);
  });
});

describe("the guard cuts a closing offer instead of resampling the reply", () => {
  const GREETING = "Hi Rosalind Tey! How can I assist you today?";

  test("the default policy: the greeting is kept, the offer cut, no sample more", async () => {
    const { llm, calls } = scripted([GREETING, "Welcome, Rosalind."]);
    const { result, report } = await generateReply(llm, req(), ctx);
    expect(calls).toHaveLength(1);
    expect(result.text).toBe("Hi Rosalind Tey!");
    expect(report.stoppedBy).toBe("offer");
    expect(report.attempts[0].problems).toEqual([]);
  });

  test("without the cut, the same sample is the assistant's voice and sampled again", async () => {
    const { llm, calls } = scripted([GREETING, "Welcome, Rosalind."]);
    const { result, report } = await generateReply(llm, req(), ctx, { ...GUARD_POLICY, cutOffers: false });
    expect(calls).toHaveLength(2);
    expect(report.attempts[0].problems.map((p) => p.kind)).toEqual(["meta"]);
    expect(result.text).toBe("Welcome, Rosalind.");
  });

  test("streamed, the client is never sent the offer's words", async () => {
    const sent: string[] = [];
    const { result } = await generateReply(scripted([GREETING]).llm, req((t) => sent.push(t)), ctx);
    expect(result.text).toBe("Hi Rosalind Tey!");
    expect(sent.join("")).toBe("Hi Rosalind Tey!");
  });

  test("the last sample, which is not judged while it streams, is cut too", async () => {
    const echo = ctx.playerLine;
    const { llm, calls } = scripted([echo, echo, "Good morning, Rosalind! How can I help you today?"]);
    const sent: string[] = [];
    const { result, report } = await generateReply(llm, req((t) => sent.push(t)), ctx);
    expect(calls).toHaveLength(3);
    expect(result.text).toBe("Good morning, Rosalind!");
    expect(sent.join("")).toBe(result.text);
    expect(report.stoppedBy).toBe("offer");
  });

  test("an offer with nothing before it is still sampled again", async () => {
    const { llm, calls } = scripted(["How can I assist you today?", "Welcome, Rosalind."]);
    const { result } = await generateReply(llm, req(), ctx);
    expect(calls).toHaveLength(2);
    expect(result.text).toBe("Welcome, Rosalind.");
  });

  test("what stood before the offer is judged as any reply: an echo is still sampled again", async () => {
    const { llm, calls } = scripted([`${ctx.playerLine} How can I assist you today?`, "Welcome, Rosalind."]);
    const { result, report } = await generateReply(llm, req(), ctx);
    expect(calls).toHaveLength(2);
    expect(report.attempts[0].problems.map((p) => p.kind)).toEqual(["echo"]);
    expect(result.text).toBe("Welcome, Rosalind.");
  });

  test("the shaper, piece by piece: it stops as soon as the offer is written", () => {
    const s = new ReplyShaper({ context: ctx, maxTokens: 64, judgeOpening: true, streaming: false, cutOffers: true });
    const text = `${GREETING} The Watch keeps the peace here, and the fines are paid on Moonday.`;
    let stopped = -1;
    pieces(text).some((p, i) => {
      if (s.push(p).stop) stopped = i;
      return stopped >= 0;
    });
    // stopped inside the offer, before the sentence after it
    const read = pieces(text).slice(0, stopped + 1).join("");
    expect(GREETING.startsWith(read) && read.length > "Hi Rosalind Tey!".length).toBe(true);
    expect(s.finish(GREETING, "stop").text).toBe("Hi Rosalind Tey!");
    expect(s.stopWhy).toBe("offer");
  });
});
