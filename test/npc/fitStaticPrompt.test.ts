// The static prompt fitted to a context: what goes first, what never goes, and that the result is a
// function of (mind, shared lore, context) alone. In process, no model: tokens are counted by a fixed
// rule (words and punctuation), so every figure below is exact arithmetic, not a model's sample.
import { describe, expect, test } from "bun:test";
import { fitStaticPrompt, type DroppedPart, type FitOptions } from "../../src/npc/prompt/fitStaticPrompt.ts";
import { personaParts, systemPrompt } from "../../src/npc/prompt/systemPrompt.ts";
import { staticPrompt, type SharedNote } from "../../src/npc/sharedLore/sharedLore.ts";
import { staticBudget } from "../../src/npc/tokenBudget.ts";
import type { MindProfile } from "../../src/npc/mindProfile.ts";

/** A tokenizer stand-in: each word and each punctuation mark a token, a newline a token. */
const count = (text: string) => (text.match(/[A-Za-z0-9']+|[^\sA-Za-z0-9']|\n/g) ?? []).length;

const words = (n: number, seed: string) => Array.from({ length: n }, (_, i) => `${seed}${i}`).join(" ");

function mind(over: Partial<MindProfile> = {}): MindProfile {
  return {
    id: "m1",
    projectId: "p1",
    entityName: "Garrick",
    role: "Innkeeper",
    personality: "Cheerful innkeeper who loves gossip.",
    // long enough for its summary to be worth it, short enough to be shown whole when there is room
    backstory: `Ran the Tankard for thirty years. ${words(150, "past")}`,
    backstorySummary: "Ran the Tankard for thirty years after the war.",
    speakingStyle: "Warm, chatty, a little loud.",
    hints: Array.from({ length: 6 }, (_, i) => `Mentions rumour number ${i} about the caravan ${words(8, `h${i}x`)}`),
    restrictions: ["Never reveals the smugglers' tunnel", "Never names the mayor's spy"],
    knowledgeDescription: "Knows the town's gossip and the price of ale.",
    location: { name: "Rusty Tankard", description: "A tavern by the river" },
    knowledge: [],
    knowledgeTags: ["tavern"],
    responseConfig: { verbosity: "balanced", maxTokens: 200, temperature: 0.7, maxSentences: 3 },
    relationships: Array.from({ length: 8 }, (_, i) => ({ otherName: `Villager ${i}`, kind: "FRIEND", description: words(10, `r${i}x`) })),
    ...over,
  };
}

const shared: SharedNote[] = Array.from({ length: 10 }, (_, i) => ({
  chunkId: `c${i}`,
  documentId: `d${i}`,
  documentName: `Chronicle ${String(i).padStart(2, "0")}`,
  chunkIndex: 0,
  text: `Chronicle entry ${i}: ${words(40, `lore${i}x`)}`,
  tags: ["tavern"],
}));

const opts = (contextSize: number, over: Partial<FitOptions> = {}): FitOptions => ({ contextSize, replyCap: 200, minReply: 48, count, ...over });

/** The order parts go in: a stage starts only once every stage before it is complete. */
const ORDER: DroppedPart["part"][] = ["sharedLore", "relationships", "hints", "backstory", "knowledgeDescription", "location", "speakingStyle"];
const STAGES = ["sharedLore", "relationships", "hints", "backstory:summary", "knowledgeDescription", "location", "backstory:none", "speakingStyle"] as const;

/** Per stage: started (something of it went) and complete (all of it went). */
function stages(dropped: DroppedPart[]): { started: boolean; complete: boolean }[] {
  const by = new Map(dropped.map((d) => [d.part, d]));
  return STAGES.map((stage) => {
    const [part, how] = stage.split(":") as [DroppedPart["part"], string | undefined];
    const d = by.get(part);
    if (!d) return { started: false, complete: false };
    if (how === "summary") return { started: true, complete: true };
    if (how === "none") return { started: !d.replacedBy, complete: !d.replacedBy };
    return { started: d.removed > 0, complete: d.removed === d.of };
  });
}

function coreLines(m: MindProfile): string[] {
  const p = personaParts(m);
  return [p.identity, p.personality, "Rules you never break:", ...p.restrictions, p.rules];
}

describe("fitStaticPrompt", () => {
  test("a context with room: the whole static prompt, exactly as before, nothing dropped", () => {
    const m = mind();
    const fit = fitStaticPrompt(m, shared, opts(16_384));
    expect(fit.text).toBe(staticPrompt(m, shared));
    expect(fit.dropped).toEqual([]);
    expect(fit.shared).toEqual(shared);
    expect(fit.replyCap).toBe(200);
    expect(fit.tokens).toBe(count(fit.text));
  });

  test("shrinking contexts: the order holds, the core never goes, and the result is within its budget", () => {
    const m = mind();
    const full = staticPrompt(m, shared);
    let previous = fitStaticPrompt(m, shared, opts(16_384));
    let sawEachPart = new Set<string>();
    // From all of it down to a context where only the core remains (and then less): every 8 tokens.
    for (let ctx = 4096; ctx >= 300; ctx -= 8) {
      const fit = fitStaticPrompt(m, shared, opts(ctx));
      for (const line of coreLines(m)) expect(fit.text).toContain(line);
      // Everything it keeps is the full prompt's text (a subset of its lines, in order).
      const lines = fit.text.split("\n");
      let at = 0;
      const fullLines = full.split("\n");
      for (const l of lines) {
        if (l === personaParts(m).backstorySummary) continue; // the one line the full prompt does not have
        at = fullLines.indexOf(l, at);
        expect({ l, found: at >= 0 }).toEqual({ l, found: true });
      }
      // A stage starts only when every stage before it is complete.
      const st = stages(fit.dropped);
      st.forEach((x, i) => {
        if (x.started) for (let j = 0; j < i; j++) expect({ before: STAGES[i], stage: STAGES[j], complete: st[j].complete }).toEqual({ before: STAGES[i], stage: STAGES[j], complete: true });
      });
      for (const d of fit.dropped) sawEachPart.add(d.part);
      // The shared lore kept is a prefix of the selection, and its notes are in the text.
      expect(shared.slice(0, fit.shared.length)).toEqual(fit.shared);
      // Within budget, unless only the core is left (then the reply cap gave way instead).
      if (!st.every((x) => x.complete)) {
        expect(fit.tokens).toBeLessThanOrEqual(staticBudget(ctx, 200));
        expect(fit.replyCap).toBe(200);
      }
      // A smaller context never keeps more.
      expect(fit.text.length).toBeLessThanOrEqual(previous.text.length);
      previous = fit;
    }
    // Every stage was passed through on the way down (the mind has every optional part).
    expect([...sawEachPart].sort()).toEqual([...ORDER].sort());
  });

  test("shared lore goes first: while any of it is kept, the persona is whole", () => {
    const m = mind();
    const persona = systemPrompt(m);
    for (let ctx = 4096; ctx >= 300; ctx -= 8) {
      const fit = fitStaticPrompt(m, shared, opts(ctx));
      if (fit.shared.length > 0) expect(fit.text.startsWith(`${persona}\n\n[Lore]\n`)).toBe(true);
    }
  });

  test("a long backstory goes to its summary before it goes altogether", () => {
    const m = mind();
    const stages = new Map<string, number>();
    for (let ctx = 4096; ctx >= 300; ctx -= 4) {
      const d = fitStaticPrompt(m, shared, opts(ctx)).dropped.find((x) => x.part === "backstory");
      const stage = d === undefined ? "full" : d.replacedBy ? "summary" : "none";
      if (!stages.has(stage)) stages.set(stage, ctx);
    }
    expect([...stages.keys()]).toEqual(["full", "summary", "none"]);
    const summaryOnly = fitStaticPrompt(m, shared, opts(stages.get("summary")!));
    expect(summaryOnly.text).toContain("Backstory: Ran the Tankard for thirty years after the war.");
    expect(summaryOnly.text).not.toContain("past0");
  });

  test("deterministic: the same (mind, shared lore, context) gives the same text, whatever was fitted before", () => {
    const m = mind();
    const contexts = [512, 768, 1024, 1536, 2048];
    const first = contexts.map((c) => fitStaticPrompt(m, shared, opts(c)).text);
    const again = [...contexts].reverse().map((c) => fitStaticPrompt(structuredClone(m), structuredClone(shared), opts(c)).text).reverse();
    expect(again).toEqual(first);
    expect(new Set(first).size).toBeGreaterThan(1);
  });

  test("a core over its share: every optional part dropped, the reply cap gives way down to its minimum, never below", () => {
    const m = mind({ personality: words(600, "trait") });
    const roomy = fitStaticPrompt(m, shared, opts(4096));
    expect(roomy.replyCap).toBe(200);
    const tight = fitStaticPrompt(m, shared, opts(1200));
    expect(tight.shared).toEqual([]);
    for (const line of coreLines(m)) expect(tight.text).toContain(line);
    expect(tight.text).not.toContain("People you know:");
    expect(tight.text).not.toContain("Speaking style:");
    expect(tight.replyCap).toBeLessThan(200);
    expect(tight.replyCap).toBeGreaterThanOrEqual(48);
    // the cap is the largest that keeps the core within its share
    expect(staticBudget(1200, tight.replyCap)).toBeGreaterThanOrEqual(tight.tokens);
    expect(staticBudget(1200, tight.replyCap + 1)).toBeLessThan(tight.tokens);
    const hopeless = fitStaticPrompt(m, shared, opts(600));
    expect(hopeless.replyCap).toBe(48);
    // a mind that asks for less than the minimum keeps its own cap
    expect(fitStaticPrompt(m, shared, opts(600, { replyCap: 20, minReply: 20 })).replyCap).toBe(20);
  });

  test("a mind with no optional parts and no shared lore is its system text at any context", () => {
    const m = mind({ backstory: null, backstorySummary: null, speakingStyle: null, hints: [], relationships: [], knowledgeDescription: null, location: null });
    for (const c of [256, 512, 4096]) {
      const fit = fitStaticPrompt(m, [], opts(c));
      expect(fit.text).toBe(systemPrompt(m));
      expect(fit.dropped).toEqual([]);
    }
  });
});
