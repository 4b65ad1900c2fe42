import { keywords } from "./memoryText.ts";
import { EXAMPLE_FACTS, EXAMPLE_MIND, summaryPrompt } from "./summaryPrompt.ts";
import type { MemoryDraft } from "./types.ts";

/** The words of the example's facts ("Doran", "hill farms", "rope"…), as keywords() writes them. */
const FACT_WORDS = keywords(EXAMPLE_FACTS.join("\n"));
/**
 * The summary prompt's own words, its facts aside: the instructions' and the worked example's shape ("name",
 * "owes", "comes from", "hates", "pay", "memories"). Every summary prompt holds them, whatever the session.
 */
const SHAPE_WORDS = new Set(
  [...keywords(summaryPrompt("", [], true).map((m) => m.content).join("\n"))].filter((w) => !FACT_WORDS.has(w)),
);
/** The example's NPC as a memory names it ("the shopkeeper"), case and article aside. */
const EXAMPLE_MIND_NAMED = new RegExp(`\\b(?:the\\s+)?${EXAMPLE_MIND}\\b`, "gi");

/**
 * Keeps the memories taken from the summarised session. A memory is dropped when
 *  - it holds a fact of the prompt's worked example (a name, place, thing, amount or day of EXAMPLE_FACTS) that
 *    the session never said: it was copied from the example ("The player's name is Doran."), whatever else it
 *    shares with the session; or
 *  - none of its words is one the session said beyond the prompt's own shape: "name", "owes" or "comes from"
 *    are in every summary prompt, so a session that uses them supports nothing by them alone.
 * The mind's own name counts for neither. Small models write free inventions ("I'm a dragon.") and the example's
 * facts into a summary (measured: 4 of 12 Gemma 3 270M summaries held one). A paraphrase by a capable model
 * keeps a name, a thing or a number of what was said.
 *
 * A memory that calls the mind by the example NPC's role ("The player owes the shopkeeper 30 gold.") is about
 * this mind when the session never spoke of a shopkeeper: it names the mind instead, and is judged as such
 * ("The player owes the shopkeeper." alone is then only shape, and dropped).
 * `example`: whether the prompt showed the worked example (a model copies only what it was shown).
 */
export function groundedDrafts(drafts: MemoryDraft[], mindName: string, messages: { content: string }[], opts: { example: boolean }): MemoryDraft[] {
  const mind = keywords(mindName);
  const text = messages.map((m) => m.content).join("\n");
  const said = keywords(text);
  const standIn = opts.example && mindName.trim() !== "" && !new RegExp(EXAMPLE_MIND_NAMED.source, "i").test(text);
  const named = standIn ? drafts.map((d) => ({ ...d, text: d.text.replace(EXAMPLE_MIND_NAMED, () => mindName.trim()) })) : drafts;
  return named.filter((d) => {
    const words = [...keywords(d.text)].filter((w) => !mind.has(w));
    if (opts.example && words.some((w) => FACT_WORDS.has(w) && !said.has(w))) return false;
    return words.some((w) => said.has(w) && !SHAPE_WORDS.has(w));
  });
}
