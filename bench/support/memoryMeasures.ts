/**
 * What the memory benches count of one summary's memories beyond the facts kept: how many say nothing another of
 * them does not (a restatement: the summary's own paraphrase of a fact and the player's statement of it kept both),
 * and how many are in the third person (a memory in the first or second person reads as the mind's own words in the
 * next session's prompt).
 */
import { statedNumbers } from "../../src/npc/replies/quantities.ts";
import { words } from "../../src/npc/replies/wordOverlap.ts";

const FIRST_OR_SECOND = /\b(?:I|I'm|I've|I'll|I'd|me|my|mine|myself|we|we're|us|our|ours|you|you're|you've|you'll|you'd|your|yours|yourself)\b/i;

/** A memory's words, a number in any of its forms ("four", "4") as its value, a possessive as its word. */
function factWords(text: string): Set<string> {
  const numbers = statedNumbers(text);
  const numberWords = new Set(numbers.flatMap((n) => words(n.text)));
  const out = new Set(words(text).filter((w) => !numberWords.has(w)).map((w) => w.replace(/'s$/, "")));
  for (const n of numbers) out.add(`#${n.value}`);
  return out;
}

/** How many of the memories hold no word (numbers by value) another of them does not: of two alike, the later counts. */
export function restatements(texts: string[]): number {
  const sets = texts.map(factWords);
  let n = 0;
  for (const [i, a] of sets.entries()) {
    const within = (b: Set<string>) => [...a].every((w) => b.has(w));
    if (sets.some((b, j) => j !== i && within(b) && (b.size > a.size || j < i))) n++;
  }
  return n;
}

/** How many of the memories have no first- or second-person word. */
export function inThirdPerson(texts: string[]): number {
  return texts.filter((t) => !FIRST_OR_SECOND.test(t)).length;
}
