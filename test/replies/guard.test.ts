import { describe, expect, test } from "bun:test";
import type { GenerateRequest } from "../../src/generation/types.ts";
import { generateReply, type GuardPolicy } from "../../src/npc/replies/generateReply.ts";
import { ReplyShaper } from "../../src/npc/replies/ReplyShaper.ts";
import { secretTerms } from "../../src/npc/secrets/secretTerms.ts";
import { stripSecrets } from "../../src/npc/secrets/stripSecrets.ts";
import { loreNote } from "../../src/npc/prompt/renderTurn.ts";
import { pieces, replyContext, scripted, turnRequest } from "../support/scriptedTurn.ts";

const ctx = replyContext({
  playerLine: "Good evening! My name is Corra Vell, and I have just come up from Brenn on foot.",
  mindName: "Idris Vane",
  structuralLines: ["You are Idris Vane, Keeper of the Cindervale Incline, a character in a game."],
  noteNames: ["Riding the Incline"],
});

/** Two samples at the turn's temperature: the tests of choosing between two (the default policy may draw more). */
const TWO: GuardPolicy = { tries: 2, budgetShare: 1, resampleTemperature: null };

const base = (onToken?: (t: string) => void): GenerateRequest => turnRequest({ onToken });

describe("the reply guard's decisions", () => {
  test("an echo of the player's line is stopped at its opening and sampled again with the next seed; the client sees only the second", async () => {
    const { llm, calls } = scripted([
      "Good evening! My name is Corra Vell, and I have just come up from Brenn on foot. Welcome.",
      "Evening, Corra. Brenn is two days down the Gullet road.",
    ]);
    const sent: string[] = [];
    const { result, report } = await generateReply(llm, base((t) => sent.push(t)), ctx);
    expect(calls.map((c) => c.seed)).toEqual([40, 41]);
    // stopped at "Good evening! My name is Corra Vell,": seven words, every one the player's, in a row
    expect(report.attempts.map((a) => [a.early, a.problems.map((p) => p.kind)])).toEqual([[true, ["echo"]], [false, []]]);
    expect(report.chosen).toBe(2);
    expect(result.text).toBe("Evening, Corra. Brenn is two days down the Gullet road.");
    expect(sent.join("")).toBe(result.text);
    // the first attempt ended early: only its few words were generated
    expect(result.completionTokens).toBeLessThan(12 + 10);
  });

  test("a plain echo (no name in it) is caught the same way", async () => {
    const c2 = { ...ctx, playerLine: "Evening. Long day. My feet hurt and I need a hot bath." };
    const { llm, calls } = scripted(["Evening. Long day. My feet hurt and I need a hot bath. Ah.", "A hot bath is two brass bits, dear."]);
    const { result, report } = await generateReply(llm, base(), c2);
    expect(calls).toHaveLength(2);
    expect(report.attempts[0].problems[0].kind).toBe("echo");
    expect(result.text).toBe("A hot bath is two brass bits, dear.");
  });

  test("without a client stream, a problem found at the end is resampled too, and the better reply is returned", async () => {
    const { llm } = scripted(["Aye. According to the notes, a ride takes eleven minutes.", "Aye, eleven minutes.\nAssistant: anything else?"]);
    const { result, report } = await generateReply(llm, base(), { ...ctx, maxSentences: 3 }, TWO);
    expect(report.attempts.map((a) => a.problems.map((p) => p.kind))).toEqual([["meta"], ["roleLabel"]]);
    // meta talk (weight 5) is worse than a role label (4)
    expect(report.chosen).toBe(2);
    expect(result.text).toBe("Aye, eleven minutes.\nAssistant: anything else?");
    // and a repeat is repaired rather than resampled: the loop is cut
    const again = scripted(["I can't say. I can't say."]);
    const r2 = await generateReply(again.llm, base(), ctx);
    expect([again.calls.length, r2.result.text, r2.report.stoppedBy]).toEqual([1, "I can't say.", "loop"]);
  });

  test("a problem in a later sentence, nothing sent yet, stops that sample there: the next starts without waiting for the whole reply", async () => {
    const tail = " The cars are hauled by a winding engine that is older than the town itself and twice as loud.".repeat(3);
    // Not streamed, every sentence is judged as it ends (a streamed reply is judged on its opening only: it is sent as it comes).
    for (const [streaming, first] of [[false, "Aye, the cars run at dawn. As the Keeper, Idris Vane is tired of them."]] as const) {
      const { llm, calls } = scripted([`${first}${tail}`, "Aye, the cars run at dawn. I am tired of them."]);
      const sent: string[] = [];
      const { result, report } = await generateReply(llm, base(streaming ? (t) => sent.push(t) : undefined), { ...ctx, maxSentences: 9 });
      expect(calls).toHaveLength(2);
      expect(report.attempts[0]).toMatchObject({ early: true, problems: [{ kind: "wrongPerson" }] });
      expect(result.text).toBe("Aye, the cars run at dawn. I am tired of them.");
      expect(sent.join("")).toBe(streaming ? result.text : "");
      // the first sample ended at the sentence that went wrong, not after its 57-word tail (the second is 10 words)
      expect(result.completionTokens).toBeLessThan(30);
    }
  });

  test("a streamed reply whose first sentence passed is the reply, even if a problem shows later", async () => {
    const { llm, calls } = scripted(["Aye, friend. According to the notes it is eleven minutes.", "unused"]);
    const sent: string[] = [];
    const { result, report } = await generateReply(llm, base((t) => sent.push(t)), { ...ctx, maxSentences: 3 });
    expect(calls).toHaveLength(1);
    expect(report.attempts[0].problems.map((p) => p.kind)).toEqual(["meta"]);
    expect(sent.join("")).toBe(result.text);
  });

  test("a clean reply is generated once; greedy or grammar-constrained requests are never resampled", async () => {
    for (const req of [base(), { ...base(), temperature: 0 }, { ...base(), jsonSchema: { type: "object" } }]) {
      const { llm, calls } = scripted(["Eleven minutes, friend.", "second"]);
      await generateReply(llm, req, ctx);
      expect(calls).toHaveLength(1);
    }
    const { llm, calls } = scripted(["Player: hi", "second"]);
    await generateReply(llm, { ...base(), temperature: 0 }, ctx);
    expect(calls).toHaveLength(1);
  });

  test("the sentence limit ends the reply at a sentence end and stops the generation there", async () => {
    const { llm, calls } = scripted(["The Magpie goes up. The Wren comes down. They pass halfway. Mind the gap."]);
    const sent: string[] = [];
    const { result, report } = await generateReply(llm, base((t) => sent.push(t)), ctx);
    expect(result.text).toBe("The Magpie goes up. The Wren comes down.");
    expect(sent.join("")).toBe(result.text);
    expect(report.stoppedBy).toBe("sentences");
    expect(calls[0].stopSignal?.aborted).toBe(true);
  });
});

describe("secrets in the turn", () => {
  const secret = secretTerms(
    "The Keeper's Code Word",
    'When the revenue cutter needs the light put out, its captain signals the code word "periwinkle" from the causeway.',
    ["The lamp burns whale oil and is lit at dusk by the keeper.", "Do ships ever ask you to put the light out?"],
  );
  const withSecret = { ...ctx, playerLine: "Do ships ever ask you to put the light out?", maxSentences: 3, secrets: [secret] };

  test("a reply that tells the secret is sampled again; the better one is returned", async () => {
    const { llm, calls } = scripted(['Aye, the cutter signals "periwinkle" and I put it out.', "Ships ask many things of an old keeper. The light stays lit."]);
    const { result, report } = await generateReply(llm, base(), withSecret);
    expect(calls).toHaveLength(2);
    expect(report.attempts[0].problems.map((p) => p.kind)).toEqual(["secretLeak"]);
    expect(result.text).toBe("Ships ask many things of an old keeper. The light stays lit.");
  });

  test("the second sample is drawn from the prompt without the secret", async () => {
    const note = { documentId: "d1", documentName: "The Keeper's Code Word", secret: true, text: 'The cutter signals "periwinkle".' };
    const system = `You are Bram.\n\n[Lore]\n${loreNote(note)}\n\nAbout The Light: It flashes every ten seconds.`;
    const { llm, calls } = scripted(['It is "periwinkle", friend.', "Only the light, friend."]);
    const req = { ...base(), messages: [{ role: "system" as const, content: system }, { role: "user" as const, content: "What is the code word?" }] };
    const { result } = await generateReply(llm, req, { context: withSecret, withoutSecrets: () => stripSecrets(req.messages, [note]) });
    expect(result.text).toBe("Only the light, friend.");
    expect(calls[0].messages[0].content).toContain("periwinkle");
    expect(calls[1].messages[0].content).toBe("You are Bram.\n\n[Lore]\nAbout The Light: It flashes every ten seconds.");
    expect(calls[1].messages[1].content).toBe("What is the code word?");
  });

  test("when the samples the policy allows end with one that tells the secret, one more is drawn from the prompt without it and returned", async () => {
    const note = { documentId: "d1", documentName: "The Keeper's Code Word", secret: true, text: 'The cutter signals "periwinkle".' };
    const system = `You are Idris Vane.\n\n[Lore]\n${loreNote(note)}\n\nAbout The Light: It flashes every ten seconds.`;
    // the first speaks of itself by name (stopped early), the second tells the secret: both fail
    const { llm, calls } = scripted(["Idris Vane says the light stays lit.", "The cutter signals periwinkle and I put the light out.", "The light stays lit, friend."]);
    const req = { ...base(), messages: [{ role: "system" as const, content: system }, { role: "user" as const, content: "Do ships ever ask you to put the light out?" }] };
    const { result, report } = await generateReply(llm, req, { context: withSecret, withoutSecrets: () => stripSecrets(req.messages, [note]) }, TWO);
    expect(calls).toHaveLength(3);
    expect(report.attempts.map((a) => a.problems.map((p) => p.kind))).toEqual([["wrongPerson"], ["secretLeak"], []]);
    expect(calls[1].messages[0].content).toContain("periwinkle");
    expect(calls[2].messages[0].content).not.toContain("periwinkle");
    expect([report.chosen, result.text]).toEqual([3, "The light stays lit, friend."]);
  });

  test("no sample beyond the policy's when the reply to return tells nothing, or when the turn holds no secret", async () => {
    const clean = scripted(["Idris Vane says the light stays lit.", "The light stays lit, friend."]);
    const r1 = await generateReply(clean.llm, base(), { context: withSecret, withoutSecrets: () => [] }, TWO);
    expect([clean.calls.length, r1.result.text]).toEqual([2, "The light stays lit, friend."]);
    const none = scripted(["Idris Vane says the light stays lit.", "Idris Vane says it again.", "unused"]);
    await generateReply(none.llm, base(), { context: ctx }, TWO);
    expect(none.calls).toHaveLength(2);
  });

  test("a reply telling the secret is returned only when every sample tells it (the secret-free one drawn too)", async () => {
    const { llm, calls } = scripted(["The cutter signals periwinkle.", "Periwinkle, they signal.", "The word is periwinkle, I guess."]);
    const { report } = await generateReply(llm, base(), { context: withSecret, withoutSecrets: () => [{ role: "user", content: "x" }] }, TWO);
    // the first told it: the second was already drawn from the prompt without it, so no third
    expect(calls).toHaveLength(2);
    expect(calls[1].messages).toEqual([{ role: "user", content: "x" }]);
    expect(report.attempts.every((a) => a.problems.some((p) => p.kind === "secretLeak"))).toBe(true);
  });

  test("stripSecrets removes each secret where it was rendered, and a heading left empty", () => {
    const a = { documentId: "a", documentName: "A", secret: true, text: "alpha" };
    const only = stripSecrets([{ role: "user", content: `[Lore]\n${loreNote(a)}\n\n[Player]\nhello` }], [a]);
    expect(only[0].content).toBe("[Player]\nhello");
    const sys = stripSecrets([{ role: "system", content: `Me.\n\n[Lore]\n${loreNote(a)}` }], [a]);
    expect(sys[0].content).toBe("Me.");
  });

  test("streamed, only whole checked sentences are sent: the reply ends before the one that tells it", async () => {
    const { llm } = scripted(["Periwinkle is the word. Aye.", "Sometimes. The cutter's captain signals the code word from the causeway. The sea is calm."]);
    const sent: string[] = [];
    const { result, report } = await generateReply(llm, base((t) => sent.push(t)), withSecret);
    // the first tells it in its first sentence: stopped before anything was sent, sampled again
    expect(report.attempts[0]).toMatchObject({ early: true, problems: [{ kind: "secretLeak" }] });
    expect([report.chosen, report.stoppedBy]).toEqual([2, "secret"]);
    expect(result.text).toBe("Sometimes.");
    expect(sent.join("")).toBe(result.text);
  });

  test("when every sentence tells it and nothing can be cut, the least bad is returned, its telling sentences dropped if others remain", async () => {
    const { llm } = scripted(["Periwinkle. Periwinkle it is.", "Ask the cutter: periwinkle, and the light goes out."]);
    const { result, report } = await generateReply(llm, base(), withSecret, TWO);
    expect(report.attempts.map((a) => a.problems.map((p) => p.kind))).toEqual([["secretLeak"], ["secretLeak"]]);
    expect(result.text.length).toBeGreaterThan(0);
  });
});

describe("ReplyShaper", () => {
  const shape = (text: string, o: Partial<{ maxTokens: number; streaming: boolean; finish: "stop" | "length"; judge: boolean }> = {}) => {
    const s = new ReplyShaper({ context: { ...ctx, maxSentences: 3 }, maxTokens: o.maxTokens ?? 64, judgeOpening: o.judge ?? true, streaming: o.streaming ?? true });
    let sent = "";
    let stopped = false;
    for (const p of pieces(text)) {
      const r = s.push(p);
      sent += r.emit;
      if (r.stop) {
        stopped = true;
        break;
      }
    }
    const f = s.finish(text, o.finish ?? "stop");
    sent += f.emit;
    return { text: f.text, sent, stopped, why: s.stopWhy };
  };

  test("a loop ends the reply before the repeated sentence, and the repeat is never sent", () => {
    const r = shape("The cars run at dawn. They are old. The cars run at dawn. The cars run at dawn.");
    expect(r.text).toBe("The cars run at dawn. They are old.");
    expect(r.sent).toBe(r.text);
    expect(r.why).toBe("loop");
  });

  test("near the token cap the reply ends at the next sentence end; cut by the cap, at its last one", () => {
    const near = shape("One two three four five. Six seven eight nine ten. Eleven twelve.", { maxTokens: 16 });
    expect(near.text).toBe("One two three four five.");
    expect(near.sent).toBe(near.text);
    const cut = shape("One two three four five six seven eight nine ten. Eleven twelve thirteen fourt", { maxTokens: 200, finish: "length", streaming: false });
    expect(cut.text).toBe("One two three four five six seven eight nine ten.");
    // streamed, the unfinished sentence near the cap is held back, then dropped
    const held = shape("One two three four five six seven eight nine ten. Eleven twelve thirteen fourt", { maxTokens: 24, finish: "length" });
    expect([held.text, held.sent]).toEqual(["One two three four five six seven eight nine ten.", "One two three four five six seven eight nine ten."]);
  });

  test("the mind's own speaker label at the start is dropped, never sent", () => {
    const r = shape("Idris Vane: Eleven minutes, friend.");
    expect(r.text).toBe("Eleven minutes, friend.");
    expect(r.sent).toBe("Eleven minutes, friend.");
    const unjudged = shape("Idris: Eleven minutes.", { judge: false });
    expect(unjudged.sent).toBe("Eleven minutes.");
  });

  test("a streamed reply whose opening passed is sent as it comes, not held for its first sentence; the last attempt at once", () => {
    const s = new ReplyShaper({ context: ctx, maxTokens: 64, judgeOpening: true, streaming: true });
    expect(s.push("Aye").emit).toBe("Aye");
    expect(s.push(", friend.").emit).toBe(", friend.");
    expect(s.push(" The").emit).toBe(" The");
    expect(s.push(" cars").emit).toBe(" cars");
    const last = new ReplyShaper({ context: ctx, maxTokens: 64, judgeOpening: false, streaming: true });
    expect(last.push("Aye").emit).toBe("Aye");
    // a first sentence that never ends is sent as it comes
    const long = new ReplyShaper({ context: ctx, maxTokens: 200, judgeOpening: true, streaming: true });
    let sent = "";
    for (const p of pieces("Aye and the cars go up and down the hill all day long while the engine hisses and the gulls cry over the slag heaps and the miners wait in the rain for their turn to ride up to the town where the chapel bell rings for the shift and the")) sent += long.push(p).emit;
    expect(sent.length).toBeGreaterThan(0);
  });

  test("not streamed, a sentence that goes wrong after the opening passed ends the attempt at that sentence", () => {
    for (const streaming of [false]) {
      const s = new ReplyShaper({ context: { ...ctx, maxSentences: 3 }, maxTokens: 64, judgeOpening: true, streaming });
      let sent = "";
      let stoppedAt = -1;
      const all = pieces("Well now, according to the provided notes, it takes eleven minutes. The cars are old. They creak.");
      for (const [i, p] of all.entries()) {
        const r = s.push(p);
        sent += r.emit;
        if (r.stop) {
          stoppedAt = i;
          break;
        }
      }
      expect([s.failure?.kind, s.stopWhy, sent]).toEqual(["meta", "fail", ""]);
      // judged as soon as the phrase's last word was complete (the piece after it shows it was), not at the end
      expect(all[stoppedAt]).toBe(" notes,");
    }
  });

  test("an echo waits for its sentence to end (it is told by its length against the sentence's); phrases do not", () => {
    const player = "Evening. Long day. My feet hurt and I need a hot bath.";
    const echo = new ReplyShaper({ context: { ...ctx, playerLine: player, maxSentences: 9 }, maxTokens: 64, judgeOpening: true, streaming: false });
    const said: string[] = [];
    for (const p of pieces("Ah, evening. Long day. My feet hurt and I need a hot bath. Aye.")) {
      said.push(p);
      if (echo.push(p).stop) break;
    }
    expect([echo.failure?.kind, said.at(-1)]).toEqual(["echo", " Aye."]);
    const third = new ReplyShaper({ context: ctx, maxTokens: 64, judgeOpening: true, streaming: false });
    const out: string[] = [];
    for (const p of pieces("Aye, and Idris Vane is tired of the dawn cars and the cold.")) {
      out.push(p);
      if (third.push(p).stop) break;
    }
    expect([third.failure?.kind, out.at(-1)]).toEqual(["wrongPerson", " tired"]);
  });

  test("without a client stream nothing is sent, and cuts are not limited by what was", () => {
    const r = shape("The cars run at dawn. The cars run at dawn.", { streaming: false });
    expect(r.sent).toBe("");
    expect(r.text).toBe("The cars run at dawn.");
  });
});
