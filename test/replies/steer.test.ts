import { describe, expect, test } from "bun:test";
import type { GenerateRequest } from "../../src/generation/types.ts";
import { replyContext, scripted, turnRequest } from "../support/scriptedTurn.ts";
import { generateReply, GUARD_POLICY, type GuardPolicy } from "../../src/npc/replies/generateReply.ts";
import { distinctive, mergeAvoid, steerAway } from "../../src/npc/replies/steer.ts";
import { chatBody } from "../../src/generation/remote/chatBody.ts";

const ctx = replyContext({
  playerLine: "Good morning, keeper. The gulls were very loud over the quay last night.",
  mindName: "Bram Fenwick",
  structuralLines: ["You are Bram Fenwick, Keeper of the Gull Rock light, a character in a game."],
  hintLines: [],
  noteNames: ["The Gull Rock light"],
  maxSentences: 3,
});

const req = (): GenerateRequest => turnRequest({ seed: 7 });
const ECHO = ctx.playerLine;
const META = "I'm sorry, but I can't assist with that.";
const CLEAN = "Aye, the gulls never sleep. The lamp kept them circling till dawn.";
const texts = (r: GenerateRequest) => new Set((r.avoid ?? []).map((a) => a.text));

describe("steerAway: what a resample is steered from", () => {
  test.each([
    ["echo", "9 of the player's 12 words in a row", ["morning", "keeper", "gulls", "loud", "quay", "night", "good"], ["the", "were", "very", "over"]],
    ["meta", '"I can\'t assist with that"', ["assist", "sorry", "ai", "help"], ["that", "can't", "i", "morning"]],
    ["promptEcho", '"stay in character"', ["stay", "character"], ["in", "gulls"]],
    ["promptEcho", '6 words of "You are Bram Fenwick, Keeper of the Gull Rock light, a character i"', ["bram", "fenwick", "keeper", "gull", "rock", "light", "character", "game"], ["you", "are", "of", "the"]],
    ["wrongPerson", '"Bram Fenwick is"', ["bram", "fenwick"], ["is", "gulls"]],
    ["wrongPerson", '"My name is Corra"', ["corra"], ["name", "gulls"]],
    ["repetition", "five words twice", [], ["gulls"]],
  ] as const)("after %s (%s)", (kind, detail, steered, spared) => {
    const avoid = steerAway([{ kind, detail }], ctx, -4);
    const words = new Set(avoid.map((a) => a.text.trim().toLowerCase()));
    for (const w of steered) expect(words.has(w)).toBe(true);
    for (const w of spared) expect(words.has(w)).toBe(false);
    expect(avoid.every((a) => a.logit === -4)).toBe(true);
  });

  test("each word in the forms a tokenizer splits differently: as written, capitalised, short ones upper case, each with a leading space", () => {
    const avoid = steerAway([{ kind: "meta", detail: '"as an AI"' }], { ...ctx }, -3).map((a) => a.text);
    for (const f of ["ai", "Ai", "AI", " ai", " AI", "assist", " Assist"]) expect(avoid).toContain(f);
  });

  test("distinctive words: no common words, no lone letters or bare numbers", () => {
    expect(distinctive("I owe you 30 gold for the room, and a bit more.")).toEqual(["owe", "gold", "room", "bit", "more"]);
  });

  test("several failed samples: every word once, a word both failed with pushed down by both", () => {
    const m = mergeAvoid([{ text: "gulls", logit: -4 }], [{ text: "gulls", logit: -4 }, { text: "quay", logit: -4 }]);
    expect(m).toEqual([{ text: "gulls", logit: -8 }, { text: "quay", logit: -4 }]);
    expect(mergeAvoid(undefined, [])).toBeUndefined();
  });
});

test("a name claimed from the player's own line is an echo on its way: steered from the whole line", () => {
  const c = { ...ctx, playerLine: "Evening, friend! I'm Tomas Reed, a tinker from Carrow." };
  const words = new Set(steerAway([{ kind: "wrongPerson", detail: '"I\'m Tomas Reed"' }], c, -4).map((a) => a.text.trim().toLowerCase()));
  for (const w of ["tomas", "reed", "tinker", "carrow", "evening", "friend"]) expect(words.has(w)).toBe(true);
});

test("the player's own name, which the mind remembers, is never steered away: the claim's \"my\" is", () => {
  // "Do you remember my name?" drew "My name is Rosalind Tey" (the player's "my" read as the mind's own): the fix is
  // "Your name is Rosalind Tey", which a push on the name would make unsayable.
  const c = { ...ctx, playerLine: "Do you remember my name?", playerFacts: ["The player's name is Rosalind Tey.", "The player owes the Watch a fine."] };
  const words = new Set(steerAway([{ kind: "wrongPerson", detail: '"My name is Rosalind Tey"' }], c, -4).map((a) => a.text.trim().toLowerCase()));
  expect(words.has("rosalind")).toBe(false);
  expect(words.has("tey")).toBe(false);
  expect(words.has("my")).toBe(true);
  // a name the memories do not hold is steered from as before
  const other = new Set(steerAway([{ kind: "wrongPerson", detail: '"My name is Corra"' }], c, -4).map((a) => a.text.trim().toLowerCase()));
  expect(other.has("corra")).toBe(true);
  expect(other.has("my")).toBe(false);
});

describe("the guard steers its resamples", () => {
  const steer: GuardPolicy = { tries: 3, budgetShare: 1, resampleTemperature: null, steerLogit: -4 };

  test("the first sample is drawn as asked; after an echo, the next is steered from the player's line, and the steering adds up", async () => {
    const { llm, calls } = scripted([ECHO, META, CLEAN]);
    const { result, report } = await generateReply(llm, req(), ctx, steer);
    expect(result.text).toBe(CLEAN);
    expect(calls).toHaveLength(3);
    expect(calls[0].avoid).toBeUndefined();
    expect(texts(calls[1])).toContain(" gulls");
    expect(texts(calls[1])).not.toContain(" assist");
    // the third: away from both the echo and the assistant's voice
    expect(texts(calls[2])).toContain(" gulls");
    expect(texts(calls[2])).toContain(" assist");
    expect(report.attempts.map((a) => a.avoided?.includes("gulls") ?? false)).toEqual([false, true, true]);
  });

  test("a prompt that draws the same echo twice: the third sample is pushed from the line twice as hard", async () => {
    const { llm, calls } = scripted([ECHO, ECHO, CLEAN]);
    await generateReply(llm, req(), ctx, steer);
    const logit = (r: GenerateRequest, t: string) => r.avoid?.find((a) => a.text === t)?.logit;
    expect([logit(calls[1], " gulls"), logit(calls[2], " gulls")]).toEqual([-4, -8]);
  });

  test("without a steering logit, the resamples are the next seeds alone", async () => {
    const { llm, calls } = scripted([ECHO, CLEAN]);
    await generateReply(llm, req(), ctx, { ...steer, steerLogit: null });
    expect(calls.map((c) => c.avoid)).toEqual([undefined, undefined]);
    expect(calls.map((c) => c.seed)).toEqual([7, 8]);
  });

  test("a request's own avoid list is kept and the steering added to it", async () => {
    const { llm, calls } = scripted([ECHO, CLEAN]);
    await generateReply(llm, { ...req(), avoid: [{ text: "kraken", logit: -9 }] }, ctx, steer);
    expect(texts(calls[0])).toEqual(new Set(["kraken"]));
    expect(texts(calls[1])).toContain("kraken");
    expect(texts(calls[1])).toContain(" quay");
  });

  test("greedy and grammar-constrained turns are never resampled, so never steered", async () => {
    const g = scripted([ECHO, CLEAN]);
    await generateReply(g.llm, { ...req(), temperature: 0 }, ctx, steer);
    expect(g.calls).toHaveLength(1);
  });

  test("the default policy steers every resample away from an assistant's refusal too, whatever the sample before did", async () => {
    // After an echo the default's resample avoids the player's words and the refusal's ("I'm sorry, but I can't
    // assist with that.": what Qwen says when its copy is blocked); a policy without the switch avoids the line alone.
    const d = scripted([ECHO, CLEAN]);
    await generateReply(d.llm, req(), ctx, GUARD_POLICY);
    for (const w of [" gulls", " sorry", " assist", " unable"]) expect(texts(d.calls[1])).toContain(w);
    const off = scripted([ECHO, CLEAN]);
    await generateReply(off.llm, req(), ctx, { ...GUARD_POLICY, steerRefusals: false });
    expect(texts(off.calls[1])).toContain(" gulls");
    expect(texts(off.calls[1])).not.toContain(" sorry");
    // the first sample is never steered
    expect(d.calls[0].avoid).toBeUndefined();
  });

  test("the default policy steers, and its worst case is three samples (four with a secret's extra one)", () => {
    expect(GUARD_POLICY.steerLogit).toBeLessThan(0);
    expect(GUARD_POLICY.tries).toBeLessThanOrEqual(3);
  });
});

describe("choosing when every sample failed", () => {
  test("an echo is never returned when another candidate is not one, even a worse-weighted one", async () => {
    // Not streamed, an echo is stopped at its opening; a line that says the mind's previous one again is only told
    // at its end, so that sample keeps its text. Two tries: the second (the last, never stopped early) echoes.
    const previous = "The lamp burns all night on Gull Rock, and I trim the wick at dawn.";
    const c = { ...ctx, previousReply: previous };
    const { llm } = scripted([previous, ECHO]);
    const { result, report } = await generateReply(llm, req(), c, { tries: 2, budgetShare: 1, resampleTemperature: null, steerLogit: null });
    expect(report.attempts.map((a) => a.problems.map((p) => p.kind))).toEqual([["repeatsPrevious"], ["echo"]]);
    expect(report.chosen).toBe(1);
    expect(result.text).toBe(previous);
  });

  test("an echo is returned when every candidate with text is one", async () => {
    const { llm } = scripted([ECHO, ECHO]);
    const { result, report } = await generateReply(llm, req(), ctx, { tries: 2, budgetShare: 1, resampleTemperature: null, steerLogit: null });
    expect(report.attempts.map((a) => a.early)).toEqual([true, false]);
    expect(result.text).toBe(ECHO);
  });
});

describe("the steering on the remote backends", () => {
  const server = (kind: "llama-server" | "openai" | "vllm") => ({ name: "b", url: "http://x", kind, model: "m", timeoutMs: 1000 }) as any;
  const body = (kind: "llama-server" | "openai" | "vllm", jsonSchema: object | null = null) =>
    chatBody(server(kind), { messages: [], maxTokens: 8, temperature: 0.7, jsonSchema, avoid: [{ text: " gulls", logit: -4 }] }, 0);

  test("llama-server gets it as logit_bias strings (it tokenizes them as the local engine does)", () => {
    expect(body("llama-server").logit_bias).toEqual([[" gulls", -4]]);
  });

  test("never under a grammar, and not to servers that take only their own token ids", () => {
    expect(body("llama-server", { type: "object" }).logit_bias).toBeUndefined();
    expect(body("openai").logit_bias).toBeUndefined();
    expect(body("vllm").logit_bias).toBeUndefined();
  });
});
