/**
 * A reply that recites a lore sentence which does not answer what the player asked. A 0.5B model unsure of an answer
 * says the lore line it has at hand instead: asked "What was the first building in Reedmouth?", Qwen2.5-Coder-0.5B
 * answered with its notes' "The Dyke Court has seven members …" (BENCHMARKS.md "Replies in character: recited lines
 * (Qwen)"). Such a reply is in character and reads as an answer, so no hygiene check sees it; the reply guard draws it
 * again once a turn (`offTopicRecital`), as it does a made-up number. No model call: words only.
 *
 * Narrow on purpose. The player's line must be a question; every sentence of the reply that says something (four
 * content words or more) must be a near copy of one lore sentence; none of the recited sentences may share a key word
 * of the question; and some other lore sentence must share one (the notes held something closer to the question, so
 * the recital was not the best the mind had). A key word is a content word of the question that few lore sentences
 * hold: the town's name or "town" itself, in half the notes, tells no sentence from another.
 *
 * Two kinds of sentence make a reply its own, not a recital. A short one (fewer than four content words) with a lore
 * word the question does not hold: a named answer ("Mabry Solk. The cable is replaced every seven years.") or a
 * measure ("Eleven minutes."), where an interjection ("Aye.") holds none. And a sentence that states a number its
 * closest lore sentence does not: a copy keeps its numbers, and a number put in is the reply's (the number checks,
 * quantities.ts and numberPlaces.ts, judge whether it is right).
 */
import { SECRET_COMMON_WORDS, STEER_COMMON_WORDS } from "../../core/text/commonWords.ts";
import { wordStem } from "../../core/text/wordStem.ts";
import { splitSentences } from "./sentences.ts";
import { words } from "./wordOverlap.ts";
import { statedNumbers } from "./quantities.ts";

/** Content words a reply sentence needs before it can count as a recital ("Aye, the bell." says nothing of a note). */
const MIN_WORDS = 4;
/** The share of a reply sentence's content words one lore sentence must hold for the sentence to be its copy. */
const COPY_SHARE = 0.8;
/** A question word held by more than this share of the lore sentences (and by more than two) is not a key word. */
const COMMON_SHARE = 0.25;

/** Words no sentence is told apart by: function words, and the commonest longer ones ("about", "people", "know"). */
function isCommon(w: string): boolean {
  return w.length < 3 || STEER_COMMON_WORDS.has(w) || SECRET_COMMON_WORDS.has(w);
}

/** The content words of a text as stems, each once. */
export function contentStems(text: string): Set<string> {
  return new Set(words(text).filter((w) => !isCommon(w)).map(wordStem));
}

/** The sentences of the lore texts a turn carries (its shared lore, its notes, the notes earlier in the conversation). */
export function loreSentences(texts: string[]): string[] {
  return [...new Set(texts.flatMap((t) => splitSentences(t).map((s) => s.trim())).filter(Boolean))];
}

/** A line is a question when it asks one: a question mark, or a question's opening word. */
function asks(line: string): boolean {
  return line.includes("?") || /^\s*(who|what|when|where|why|how|which|whose|is|are|do|does|did|can|could|will|would)\b/i.test(line);
}

/**
 * The lore sentence a reply recites that does not answer the question (the problem's detail quotes it), or null. See
 * the file's comment for what counts.
 */
export function offTopicRecital(reply: string, question: string, lore: string[]): string | null {
  if (!asks(question) || lore.length < 2) return null;
  const loreStems = lore.map(contentStems);
  const asked = contentStems(question);
  const sentences = splitSentences(reply).map((text) => ({ text, stems: contentStems(text) }));
  // A short answer in the lore's words that the question did not hold ("Mabry Solk.") is the reply's own.
  const inLore = (w: string) => loreStems.some((l) => l.has(w));
  if (sentences.some((s) => s.stems.size < MIN_WORDS && [...s.stems].some((w) => !asked.has(w) && inLore(w)))) return null;
  const said = sentences.filter((s) => s.stems.size >= MIN_WORDS);
  if (said.length === 0) return null;
  const recited: number[] = [];
  for (const { text, stems } of said) {
    let best = -1;
    let bestShare = 0;
    loreStems.forEach((l, i) => {
      let held = 0;
      for (const w of stems) if (l.has(w)) held++;
      const share = held / stems.size;
      if (share > bestShare) [best, bestShare] = [i, share];
    });
    // One sentence of the reply that is its own words: the reply says something, not only a note.
    if (bestShare < COPY_SHARE) return null;
    // A number the lore sentence does not state makes the sentence the reply's own (a copy keeps its numbers).
    const kept = new Set(statedNumbers(lore[best], true).map((n) => n.value));
    if (statedNumbers(text).some((n) => !kept.has(n.value))) return null;
    recited.push(best);
  }
  const held = (w: string) => loreStems.filter((l) => l.has(w)).length;
  const key = [...asked].filter((w) => {
    const n = held(w);
    return n <= 2 || n <= COMMON_SHARE * lore.length;
  });
  if (key.length === 0) return null;
  const shares = (i: number) => key.some((w) => loreStems[i].has(w));
  if (recited.some(shares)) return null;
  // Only when the notes held a sentence closer to the question than what was said.
  if (!loreStems.some((_, i) => !recited.includes(i) && shares(i))) return null;
  return lore[recited[0]];
}
