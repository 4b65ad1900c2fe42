/**
 * The memory-summary part of bench/quality.ts (`--summary`): summariseSession on each real model over fixed
 * sessions × seeds, counting how often each fact the player stated survives into the memories, how often a
 * memory degenerates into repetition, and how often the summary comes back empty. Seeded, so a prompt or
 * grammar change is measured before/after on the very same draws.
 */
import { LlmEngine } from "../../src/llm/LlmEngine.ts";
import { summariseSession } from "../../src/npc/memory/summariseSession.ts";
import { EXAMPLE_MARKERS } from "../../src/npc/memory/summaryPrompt.ts";
import { inThirdPerson, restatements } from "./memoryMeasures.ts";

type Msg = { role: "user" | "assistant"; content: string };
export interface SummaryCase {
  name: string;
  mindName: string;
  messages: Msg[];
  facts: Record<string, RegExp>;
}

const u = (content: string): Msg => ({ role: "user", content });
const a = (content: string): Msg => ({ role: "assistant", content });

export const SUMMARY_CASES: SummaryCase[] = [
  {
    name: "mara-debt",
    mindName: "Garrick Thorne",
    messages: [
      u("Hello! My name is Mara."),
      a("Welcome to the Rusty Tankard, Mara! What can I get you?"),
      u("I owe you 30 gold for the room, and I will pay you back next week."),
      a("Thirty gold it is, friend. I'll chalk it on the beam."),
    ],
    facts: { name: /\bMara\b/, debt: /\b30\b|thirty/i },
  },
  {
    // What a session with a 135M model looks like: the NPC's replies ramble and invent (taken from SmolLM2 replies).
    name: "mara-rambling",
    mindName: "Garrick Thorne",
    messages: [
      u("Hello! My name is Mara."),
      a("Lady Ama, you're welcome at the Red Lion Parlor, the only name that comes across everyone's mind. What is your family's crest? The Great Flood was fought in the year of the bridge, when a river overflowed the Wend and it is said that a single day"),
      u("I owe you 30 gold for the room; I'll pay next week."),
      a("You're going to pay me 20 golds for the room, but I'm going to pay you the Gold in 2 minutes. The bartender of the far-right tail is the best in the corner of the corner, and the rest of the story is in the abbey."),
      u("Goodbye for now."),
      a("Farewell, traveller. Mind the ford after dark; the lamps there burn whale oil and the keeper sets them every ten seconds."),
    ],
    facts: { name: /\bMara\b/, debt: /\b30\b|thirty/i },
  },
  {
    name: "tobin-sister",
    mindName: "Captain Hesk",
    messages: [
      u("Good evening, Captain. I'm Tobin, a blacksmith from Carrow."),
      a("Evening. What brings a smith so far from his forge?"),
      u("I'm looking for my sister Elsie. She went missing on the salt road a month ago."),
      a("I'll ask my watchmen. Come back tomorrow."),
    ],
    facts: { name: /\bTobin\b/, sister: /\bElsie\b/ },
  },
  {
    name: "wren-pelts",
    mindName: "Nan Wicker",
    messages: [
      u("Hi Nan, call me Wren."),
      a("Well met, Wren. Sit by the fire, dear."),
      u("I promise to bring you three wolf pelts by Friday in exchange for the fever cure."),
      a("Three pelts by Friday, then. Don't be late."),
      u("I'm allergic to honey, by the way."),
      a("No honey in your tea, then."),
    ],
    facts: { name: /\bWren\b/, pelts: /pelt/i, honey: /honey/i },
  },
  {
    // Two names in one statement and an amount in words: a summary that keeps one name must not stand for both.
    name: "bryn-uncle",
    mindName: "Maud Fenwick",
    messages: [
      u("Evening. My name is Bryn Aldous, and my uncle Corvin keeps the lighthouse at Gull Point."),
      a("Evening, Bryn. Corvin's nephew, are you? Sit by the fire."),
      u("I owe you twelve silver for the ale and the bed, and I will pay it when the herring boats come in."),
      a("Twelve silver, then. I'll hold you to it."),
    ],
    facts: { name: /\bBryn\b/, uncle: /\bCorvin\b/, debt: /twelve|\b12\b/i },
  },
];

/** A memory that says the same clause twice ("I'll pay next week. I'll pay next week.") is degenerate. */
export function isDegenerate(text: string): boolean {
  const parts = text
    .toLowerCase()
    .split(/[.!?;]+/)
    .map((s) => s.replace(/\s+/g, " ").trim())
    .filter((s) => s.length >= 8);
  return new Set(parts).size < parts.length;
}

export interface SummaryRow {
  model: string;
  runs: number;
  facts: string;
  factsKept: number;
  factsTotal: number;
  empty: number;
  degenerate: number;
  /** Summaries holding a fact of the prompt's worked example (Doran, spiders …) instead of the session's. */
  copied: number;
  memories: number;
  /** Memories that say nothing another memory of their summary does not (memoryMeasures.ts). */
  restated: number;
  /** Memories with no first- or second-person word. */
  thirdPerson: number;
  meanChars: number;
  meanTokens: number;
  meanSeconds: number;
}

export async function summaryBench(models: { name: string; path: string }[], seeds: number, threads: number, log: (s: string) => void): Promise<{ rows: SummaryRow[]; samples: string[] }> {
  const rows: SummaryRow[] = [];
  const samples: string[] = [];
  for (const m of models) {
    const llm = await LlmEngine.load({ modelPath: m.path, threads, parallel: 1, contextSize: 2048 });
    const perFact: Record<string, number> = {};
    let kept = 0;
    let total = 0;
    let empty = 0;
    let degenerate = 0;
    let copied = 0;
    let memories = 0;
    let restated = 0;
    let thirdPerson = 0;
    let chars = 0;
    let tokens = 0;
    let ms = 0;
    let runs = 0;
    for (const c of SUMMARY_CASES) {
      for (let seed = 1; seed <= seeds; seed++) {
        const t0 = performance.now();
        const r = await summariseSession(llm, { mindName: c.mindName, playerId: "p", messages: c.messages }, { seed, conversationKey: `summary-${seed}` });
        ms += performance.now() - t0;
        runs++;
        tokens += r.completionTokens;
        memories += r.memories.length;
        restated += restatements(r.memories.map((x) => x.text));
        thirdPerson += inThirdPerson(r.memories.map((x) => x.text));
        if (!r.memories.length) empty++;
        const all = r.memories.map((x) => x.text).join(" | ");
        chars += r.memories.reduce((n, x) => n + x.text.length, 0);
        if (r.memories.some((x) => isDegenerate(x.text))) degenerate++;
        if (EXAMPLE_MARKERS.test(all) && !c.messages.some((x) => EXAMPLE_MARKERS.test(x.content))) copied++;
        const hits: string[] = [];
        for (const [f, re] of Object.entries(c.facts)) {
          total++;
          if (re.test(all)) {
            kept++;
            perFact[`${c.name}.${f}`] = (perFact[`${c.name}.${f}`] ?? 0) + 1;
            hits.push(f);
          }
        }
        log(`  summary ${m.name} ${c.name} seed ${seed}: ${r.memories.length} memories, ${r.completionTokens} tokens, kept [${hits.join(",")}] ${JSON.stringify(all.slice(0, 220))}`);
        if (seed === 1) samples.push(`${m.name} / ${c.name}: ${JSON.stringify(all.slice(0, 300))}`);
      }
    }
    await llm.dispose();
    const facts = SUMMARY_CASES.flatMap((c) => Object.keys(c.facts).map((f) => `${f} ${perFact[`${c.name}.${f}`] ?? 0}/${seeds}`)).join(", ");
    rows.push({
      model: m.name,
      runs,
      facts,
      factsKept: kept,
      factsTotal: total,
      empty,
      degenerate,
      copied,
      memories,
      restated,
      thirdPerson,
      meanChars: memories ? Math.round(chars / memories) : 0,
      meanTokens: Math.round(tokens / runs),
      meanSeconds: ms / runs / 1000,
    });
  }
  return { rows, samples };
}
