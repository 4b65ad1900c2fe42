import { stemmer } from "stemmer";

/**
 * Word stems for matching one text's words against another's: the reply guard's checks (who a fact is told of, a
 * recited lore line, a kept secret told) and the memories' keyword overlap. Every text the checks compare goes
 * through these, so two words meet only when both sides were stemmed the same way.
 */

/**
 * A word as the checks read it before stemming: lower case, a typographic apostrophe made plain, and a possessive
 * "'s" off, so "Callow's", "Callow’s" and "callow" are one word (the checks' word lists keep apostrophes inside
 * words for "don't", and Porter's algorithm would leave "callow'" behind).
 */
export function plainWord(word: string): string {
  return word.toLowerCase().replace(/[’‘]/g, "'").replace(/'s$/, "");
}

/**
 * A word's stem by Porter's algorithm ("owns", "owned", "owning" → "own"; "berries", "berry" → "berri"; "founding",
 * "founded" → "found"; "crossing", "crosses" → "cross"; "dammed", "dam" → "dam"). A stem is only ever compared with
 * another stem made here, never shown. Kept whole: a word with a digit ("711", "3rd"), matched as written; and a
 * word ending in "us" or "is", whose s is no plural's: Porter's algorithm takes it off ("census" → "censu", "iris"
 * → "iri") while the plural keeps it ("censuses" → "census", "irises" → "iris"), so the two would never meet.
 */
export function wordStem(word: string): string {
  const w = plainWord(word);
  return /\d|[iu]s$/.test(w) ? w : stemmer(w);
}

/**
 * A name's own form: plain, never stemmed. Porter's algorithm would make the surname "Oakes" the word "oak" (and
 * "Harding" "hard"), so a name held apart from the words it sits among must be compared unstemmed.
 */
export function nameForm(word: string): string {
  return plainWord(word);
}

/**
 * The memories' stem: a plural's "s" off, "ies" → "y", and nothing else ("caravans" → "caravan", "berries" → "berry";
 * not the s of "cross" or "census"). Not Porter's: a world memory stores its event's stems (world_memories.words),
 * and a turn's ranking pre-filters events by whether their text holds a query word's stem (or that stem without
 * its "y") as a substring; this stem is always a prefix of its word (but for that "y"), Porter's is not ("happy" →
 * "happi"), and changing it would leave the stored stems unmatched until they are written again.
 */
export function pluralStem(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss") && !word.endsWith("us")) return word.slice(0, -1);
  return word;
}
