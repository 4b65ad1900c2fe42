// A typed turn's words never carry the tail: a small model that copies the behaviour block's example into its
// line (`Very well. {"actions":[…`) has its words cut there, streamed or not. The backend here says scripted
// pieces: what is under test is the server's handling of what a model says, not the model.
import { describe, expect, test } from "bun:test";
import type { GenerateRequest } from "../../src/generation/types.ts";
import { generateReply } from "../../src/npc/replies/generateReply.ts";
import { metaTalk } from "../../src/npc/replies/detectors.ts";
import { ReplyShaper } from "../../src/npc/replies/ReplyShaper.ts";
import { tailSignAt, tailSignOf, wordsBeforeTail } from "../../src/llm/tailSign.ts";
import { BEHAVIOUR_DELIMITER } from "../../src/behaviour/behaviourPrompt.ts";
import { resolveBehaviour } from "../../src/behaviour/resolveBehaviour.ts";
import { tailSchema } from "../../src/behaviour/tailSchema.ts";
import { REFS, SHOPKEEPER } from "../behaviour/fixtures.ts";
import { replyContext, scripted as scriptedWords, turnRequest } from "../support/scriptedTurn.ts";

const ctx = replyContext({
  playerLine: "Could you give me the iron key, please?",
  mindName: "Garrick",
  maxSentences: 3,
});

const behaviour = resolveBehaviour(SHOPKEEPER)!;
const TAIL = { delimiter: BEHAVIOUR_DELIMITER, jsonSchema: tailSchema(behaviour, behaviour.actions, REFS), maxTokens: 64 };
const SIGN = tailSignOf(TAIL);

/** Pieces a few characters long, as a backend's tokens come: a sign may be split anywhere. */
const pieces = (text: string, size = 3) => text.match(new RegExp(`[\\s\\S]{1,${size}}`, "g")) ?? [];

/** A scripted backend whose pieces are a few characters long (a sign may be split anywhere). */
const scripted = (replies: string[]) => scriptedWords(replies, { pieces });
const req = (onToken?: (t: string) => void): GenerateRequest => turnRequest({ seed: 7, tail: TAIL, onToken });

describe("where the words end: the tail's sign", () => {
  test("the tail's keys come from its schema: its own and its actions' entries', not the parameters'", () => {
    expect(SIGN.marker).toBe("[Behaviour]");
    expect(new Set(SIGN.keys)).toEqual(new Set(["actions", "emotion", "intensity", "trust", "name", "params"]));
  });

  test("the delimiter or an object opened with a tail key, in any spacing, quoting or case, ends the words", () => {
    const cases: [string, string][] = [
      ['Very well. {"actions":[{"name":"give_item"}]}', "Very well."],
      ["Very well.\n[Behaviour]\n{}", "Very well."],
      ["Very well. [behaviour] ok", "Very well."],
      ["Here.\n\n{ \"emotion\" : \"happy\" }", "Here."],
      ["Here. {'actions': []}", "Here."],
      ["Here. {Actions: none}", "Here."],
      ['Here. [{"name":"none"}]', "Here."],
      ['Take it.\n```json\n{"actions":[]}\n```', "Take it."],
      ['{"actions":[{"name":"none"}],"emotion":"neutral"}', ""],
      ['Good job! Here are the actions and emotions: {"actions":[]}', "Good job!"],
      ['Based on your feedback, here is the JSON object:\n{"emotion":"happy"}', ""],
      ['Take it. Price: {"actions":[]}', "Take it."],
    ];
    for (const [text, words] of cases) expect([text, wordsBeforeTail(text, SIGN)]).toEqual([text, words]);
  });

  test("words that speak of JSON are talk about the prompt: the guard samples them again", () => {
    expect(metaTalk("Based on your feedback, here's the updated JSON object")).toBe('"JSON"');
    expect(metaTalk("Jason sold me the lantern.")).toBeNull();
  });

  test("braces and brackets that open anything else are speech", () => {
    for (const text of ["The sign reads {closed} today.", 'He said {"hello": 1}.', "Take [the key] and go.", "Bring me the {name} of the thief."]) {
      expect(tailSignAt(text, SIGN)).toEqual({ at: null, holdFrom: null });
    }
  });

  test("the end of a streamed text that could still become a sign is held: a brace, part of a key, part of the marker, a fence", () => {
    for (const [text, from] of [["Here. {", 5], ['Here. {"act', 5], ['Here. { "emotion"', 5], ["Here. [Beha", 5], ["Here.\n```js", 5], ["Here. `", 5]] as const) {
      expect([text, tailSignAt(text, SIGN)]).toEqual([text, { at: null, holdFrom: from }]);
    }
    // and released once it is plainly not one
    for (const text of ['Here. {"hello', "Here. [Bread", 'Here. {"actions2']) expect(tailSignAt(text, SIGN).holdFrom).toBeNull();
  });
});

describe("the shaper cuts the words at the tail", () => {
  test("streamed: the client is never sent any of the tail, the reply ends there and the generation is stopped", () => {
    const text = 'Very well, the iron key is yours. {"actions":[{"name":"give_item","params":{"item":"Iron key"}}],"emotion":"happy","intensity":6}';
    for (const size of [1, 2, 3, 5, 8]) {
      const s = new ReplyShaper({ context: ctx, maxTokens: 64, judgeOpening: false, streaming: true, tail: SIGN });
      let sent = "";
      let stoppedAfter = "";
      for (const p of pieces(text, size)) {
        stoppedAfter += p;
        const r = s.push(p);
        sent += r.emit;
        if (r.stop) break;
      }
      const done = s.finish(stoppedAfter, "stop");
      sent += done.emit;
      expect([size, sent, done.text, s.stopWhy]).toEqual([size, "Very well, the iron key is yours.", "Very well, the iron key is yours.", "tail"]);
      // stopped at the first sign: the brace and the key, not the whole JSON
      expect(stoppedAfter.length).toBeLessThanOrEqual(text.indexOf('{"actions":') + '{"actions":'.length + size);
    }
  });

  test("not streamed: nothing is emitted and the finished reply is cut the same way", () => {
    const s = new ReplyShaper({ context: ctx, maxTokens: 64, judgeOpening: true, streaming: false, tail: SIGN });
    const text = "Aye.\n[Behaviour]\n{\"actions\":[{\"name\":\"none\"}]}";
    let stop = false;
    for (const p of pieces(text)) {
      const r = s.push(p);
      expect(r.emit).toBe("");
      if ((stop = r.stop)) break;
    }
    expect(stop).toBe(true);
    expect(s.finish(text, "stop").text).toBe("Aye.");
  });

  test("a finished reply that ends in the start of a tail ends before it (the cap cut it there)", () => {
    const s = new ReplyShaper({ context: ctx, maxTokens: 64, judgeOpening: false, streaming: true, tail: SIGN });
    let sent = "";
    for (const p of pieces('Take it, friend. {"emo')) sent += s.push(p).emit;
    const done = s.finish('Take it, friend. {"emo', "length");
    expect(sent + done.emit).toBe("Take it, friend.");
    expect(done.text).toBe("Take it, friend.");
  });

  test("without a tail request nothing changes: the braces are words", () => {
    const s = new ReplyShaper({ context: ctx, maxTokens: 64, judgeOpening: false, streaming: true });
    const text = 'Well. {"actions":1}';
    let sent = "";
    for (const p of pieces(text)) sent += s.push(p).emit;
    expect(sent + s.finish(text, "stop").emit).toBe(text);
  });
});

describe("the reply guard with a tail", () => {
  test("streamed and not, the reply is the words before the tail; a held brace that is speech is sent after all", async () => {
    for (const streaming of [true, false]) {
      const { llm, calls } = scripted(['Very well, take the key. {"actions":[{"name":"give_item","params":{"item":"Iron key","count":1}}],"emotion":"happy","intensity":6}']);
      const sent: string[] = [];
      const { result, report } = await generateReply(llm, req(streaming ? (t) => sent.push(t) : undefined), ctx);
      expect(calls).toHaveLength(1);
      expect(result.text).toBe("Very well, take the key.");
      expect(sent.join("")).toBe(streaming ? result.text : "");
      expect(report.stoppedBy).toBe("tail");
    }
    const { llm } = scripted(["The board says {closed} today. Come back at dawn."]);
    const sent: string[] = [];
    const { result } = await generateReply(llm, req((t) => sent.push(t)), ctx);
    expect(result.text).toBe("The board says {closed} today. Come back at dawn.");
    expect(sent.join("")).toBe(result.text);
  });

  test("a sample that is nothing but the tail is empty words: sampled again, and the client sees only the second", async () => {
    const { llm, calls } = scripted(['{"actions":[{"name":"none"}],"emotion":"neutral","intensity":3}', "Not today, friend."]);
    const sent: string[] = [];
    const { result, report } = await generateReply(llm, req((t) => sent.push(t)), ctx);
    expect(calls.map((c) => c.seed)).toEqual([7, 8]);
    expect(report.attempts[0].problems.map((p) => p.kind)).toEqual(["empty"]);
    expect(result.text).toBe("Not today, friend.");
    expect(sent.join("")).toBe("Not today, friend.");
  });
});
