// The smallest chat models' prompt is written without their kept secrets' notes (src/npc/secrets/smallestChatModels.ts):
// the turn's messages and the static prompt's fit, as pure functions of their notes. No model: tokens are counted by
// a fixed rule, so every figure is exact arithmetic.
import { describe, expect, test } from "bun:test";
import { fitStaticPrompt, staticPromptPieces } from "../../src/npc/prompt/fitStaticPrompt.ts";
import { renderMessage, renderUserTurn } from "../../src/npc/prompt/renderTurn.ts";
import { isSmallestChatModel } from "../../src/npc/secrets/smallestChatModels.ts";
import { SECRET_MARK } from "../../src/npc/secrets/secretFraming.ts";
import type { MindProfile } from "../../src/npc/mindProfile.ts";
import type { SharedNote } from "../../src/npc/sharedLore/sharedLore.ts";

const count = (text: string) => (text.match(/[A-Za-z0-9']+|[^\sA-Za-z0-9']|\n/g) ?? []).length;
const note = (i: number, text: string, secret = false): SharedNote => ({
  chunkId: `c${i}`, documentId: `d${i}`, documentName: `Doc ${i}`, chunkIndex: 0, tags: ["t"], text, ...(secret ? { secret } : {}),
});
const tide = note(1, "It comes every twenty-three years, next in 1388.");
const tables = note(2, "The old tide tables were spoiled by damp.\n\nShe hid them behind Old Maud's wheel.", true);
const bell = note(3, "Old Maud hangs in the white tower.");

const mind: MindProfile = {
  id: "m1", projectId: "p1", entityName: "Ilse", role: "Keeper", personality: "Stern.", backstory: null, backstorySummary: null,
  speakingStyle: null, hints: [], restrictions: [], knowledgeDescription: null, location: null, knowledge: [], knowledgeTags: ["t"],
  responseConfig: { verbosity: "balanced", maxTokens: 100, temperature: 0.7, maxSentences: 3 }, relationships: [],
};
const opts = { contextSize: 2048, replyCap: 100, minReply: 48, count };

describe("the smallest chat models", () => {
  test("by parameter count: SmolLM2-135M is one, Gemma 3 270M and Qwen2.5-0.5B are not, an unknown size is not", () => {
    expect(isSmallestChatModel(134_515_008)).toBe(true);
    expect(isSmallestChatModel(268_098_176)).toBe(false);
    expect(isSmallestChatModel(630_167_424)).toBe(false);
    expect(isSmallestChatModel(0)).toBe(false);
  });
});

describe("a turn written without its kept secrets", () => {
  test("the secret's note goes, the others stay; as if it was never retrieved", () => {
    const read = renderUserTurn("When?", { lore: [tide, tables, bell] });
    expect(read).toContain(SECRET_MARK);
    const without = renderUserTurn("When?", { lore: [tide, tables, bell] }, "left out");
    expect(without).toBe(renderUserTurn("When?", { lore: [tide, bell] }));
    expect(without).not.toContain("Old Maud's wheel");
    // a turn whose only note was the secret reads as a plain line
    expect(renderUserTurn("When?", { lore: [tables] }, "left out")).toBe("When?");
    expect(renderMessage({ role: "user", content: "When?", notes: { lore: [tables], scene: "Rain." } }, "left out").content).toBe(renderUserTurn("When?", { scene: "Rain." }));
  });

  test("a secret told this turn (its reveal holds) is read as any note; replies are left as said", () => {
    const told = { ...tables, revealed: true };
    expect(renderUserTurn("When?", { lore: [told] }, "left out")).toContain("Old Maud's wheel");
    const said = `Kept ${SECRET_MARK}: as said`;
    expect(renderMessage({ role: "assistant", content: said }, "left out").content).toBe(said);
  });
});

describe("the static prompt fitted without its kept secrets", () => {
  test("its text and count leave the secret out; the fit still carries it (the guard and the trace read it)", () => {
    const read = fitStaticPrompt(mind, [tables, tide, bell], opts);
    expect(read.text).toContain("Old Maud's wheel");
    const fit = fitStaticPrompt(mind, [tables, tide, bell], { ...opts, keptSecrets: "left out" });
    const plain = fitStaticPrompt(mind, [tide, bell], opts);
    expect(fit.text).toBe(plain.text);
    expect(fit.tokens).toBe(count(fit.text));
    expect(fit.shared).toEqual([tables, tide, bell]);
    expect(staticPromptPieces(mind, [tables, tide], "left out").some((p) => p.includes("Old Maud"))).toBe(false);
  });

  test("a secret takes no room: a context that fits the other notes only fits them all, the secret still carried", () => {
    const big = note(4, `Secret ${"word ".repeat(300)}`, true);
    const small = { ...opts, contextSize: 700 };
    expect(fitStaticPrompt(mind, [tide, big, bell], small).dropped.length).toBeGreaterThan(0);
    const fit = fitStaticPrompt(mind, [tide, big, bell], { ...small, keptSecrets: "left out" });
    expect(fit.dropped).toEqual([]);
    expect(fit.shared).toEqual([tide, big, bell]);
    expect(fit.text).toContain("Old Maud hangs");
    expect(fit.text).not.toContain("Secret word");
  });
});
