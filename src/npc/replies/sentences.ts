/**
 * Where sentences end in an NPC's reply: the sentence cap (responseConfig.maxSentences) and the over-length
 * check both count with this. A sentence ends at `.`, `!`, `?` or an ellipsis (any run of them, `!?` included),
 * with any closing quotes or brackets after it, when what follows is the end of the text or whitespace and then
 * the start of a new sentence (a capital, a digit, an opening quote). So `3.5`, `Mr. Vane`, `St. Callow`, `e.g. this`
 * and `"Stop!" she cried.` do not end one; a blank line always does.
 */

/** Words that end with a full stop without ending a sentence (lower case, without the stop). */
const ABBREVIATIONS = new Set([
  "mr", "mrs", "ms", "dr", "st", "mt", "ft", "sr", "jr", "prof", "capt", "sgt", "col", "gen", "lt", "rev", "fr",
  "no", "vs", "etc", "e.g", "i.e", "cf", "approx", "dept", "est", "vol", "ch", "fig", "ave", "rd",
]);

const TERMINATOR = /[.!?…]/;
const CLOSERS = /["'”’)\]»*_]/;
/** What may open a sentence: a capital, a digit, an opening quote or bracket, or an emphasis mark. */
const OPENER = /[\p{Lu}\p{Lt}\d"'“‘(\[«*_¡¿]/u;

/** Offsets just past each sentence end of `text` (after its terminator and closing quotes), in order. */
export function sentenceEnds(text: string, opts: { final?: boolean } = {}): number[] {
  const final = opts.final ?? true;
  const ends: number[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === "\n" && text[i + 1] === "\n") {
      // A blank line ends whatever came before it (if anything did).
      const before = text.slice(0, i).trimEnd().length;
      if (before > (ends.at(-1) ?? 0) && !TERMINATOR.test(text[before - 1] ?? "")) ends.push(before);
      i += 2;
      continue;
    }
    if (!TERMINATOR.test(c)) {
      i++;
      continue;
    }
    let j = i;
    while (j < text.length && TERMINATOR.test(text[j])) j++;
    while (j < text.length && CLOSERS.test(text[j])) j++;
    const run = text.slice(i, j);
    if (j >= text.length) {
      // At the end of the text: an end only if the text is complete (a stream may still go on: "3." → "3.5").
      if (final && !isAbbreviation(text, i, run)) ends.push(j);
      break;
    }
    if (/\s/.test(text[j])) {
      let k = j;
      while (k < text.length && /\s/.test(text[k])) k++;
      if (k >= text.length) {
        if (final && !isAbbreviation(text, i, run)) ends.push(j);
        break;
      }
      if (OPENER.test(text[k]) && !isAbbreviation(text, i, run) && !trailsOff(run, text.slice(k, k + 3))) ends.push(j);
    }
    i = j;
  }
  return ends;
}

/** An ellipsis before the pronoun "I" is a pause, not an end ("Well... I suppose so"). */
function trailsOff(run: string, next: string): boolean {
  return /^(\.\.+|…)$/.test(run.replace(/["'”’)\]»*_]+$/, "")) && /^I(\b|['’])/.test(next);
}

/** A lone full stop after an abbreviation or an initial ("J. Solk") ends no sentence. */
function isAbbreviation(text: string, at: number, run: string): boolean {
  if (run.replace(/["'”’)\]»*_]+$/, "") !== ".") return false;
  const word = /([\p{L}.]+)$/u.exec(text.slice(Math.max(0, at - 12), at))?.[1] ?? "";
  if (word === "") return false;
  if (/^\p{Lu}$/u.test(word)) return true; // an initial
  return ABBREVIATIONS.has(word.toLowerCase());
}

/** The sentences of a complete reply, trimmed (text after the last end counts as one more). */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  let from = 0;
  for (const end of sentenceEnds(text)) {
    const s = text.slice(from, end).trim();
    if (s) out.push(s);
    from = end;
  }
  const rest = text.slice(from).trim();
  if (rest) out.push(rest);
  return out;
}

/** The reply cut after its first `max` sentences (unchanged when it has no more). */
export function capSentences(text: string, max: number): string {
  const ends = sentenceEnds(text);
  if (ends.length < max) return text;
  const cut = text.slice(0, ends[max - 1]).trimEnd();
  return text.slice(ends[max - 1]).trim() === "" ? text.trimEnd() : cut;
}

/**
 * A reply the token cap cut off: up to its last sentence end, or, with none, without its last word (which the
 * cap may have cut in two). Never mid-word.
 */
export function cutAtLastSentence(text: string): string {
  const ends = sentenceEnds(text);
  const last = ends.at(-1);
  if (last !== undefined) return text.slice(0, last).trimEnd();
  const t = text.trimEnd();
  const space = t.search(/\s\S*$/);
  return space > 0 ? t.slice(0, space).replace(/[\s,;:–—-]+$/, "") : t;
}
