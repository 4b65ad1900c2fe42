import { words } from "./wordOverlap.ts";
import { repetition } from "./detectors.ts";

/**
 * Where a reply starts repeating itself, as a character offset to cut at, or null: the start of a sentence that says
 * an earlier one again (three words or more), the start of the first sentence after the first with which the reply
 * says the same thing twice (repetition, detectors.ts), or the third time a run of four words comes round. `ends`
 * are the reply's confirmed sentence ends (sentences.ts).
 */
export function loopCut(text: string, ends: number[]): number | null {
  const seen = new Set<string>();
  let from = 0;
  for (const end of ends) {
    const w = words(text.slice(from, end));
    if (w.length >= 3) {
      const key = w.join(" ");
      if (seen.has(key)) return from;
      seen.add(key);
    }
    from = end;
  }
  return repeatsFrom(text, ends) ?? phraseLoop(text);
}

/**
 * The start of the sentence with which the reply first says the same thing twice, when sentences before it are
 * clean. A small model's loop is often only its tail: "The town gates close at the tenth bell. The captain has twice
 * voted to end the watch, and the captain has twice voted to end the watch, and…" grounds in its first sentence, yet
 * was sent back whole for another sample; cut there it is a clean reply and no sample more is drawn (SmolLM2, tuning
 * worlds: grounding equal, fewer resamples and hygiene failures; BENCHMARKS.md "Replies in character: the smallest
 * models (fourth round)"). A loop inside the first sentence is left to the guard (nothing clean is left before it).
 * Written words never stop repeating, so a cut found mid-sentence is final.
 */
function repeatsFrom(text: string, ends: number[]): number | null {
  if (repetition(text) === null) return null;
  for (let k = 0; k <= ends.length; k++) {
    if (repetition(text.slice(0, k < ends.length ? ends[k] : text.length)) !== null) return k === 0 ? null : ends[k - 1];
  }
  return null;
}

/** The offset of the third occurrence of a four-word run, or null. */
function phraseLoop(text: string): number | null {
  const re = /[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu;
  const tokens: { w: string; at: number }[] = [];
  for (const m of text.matchAll(re)) tokens.push({ w: m[0].toLowerCase(), at: m.index! });
  const counts = new Map<string, number>();
  for (let i = 0; i + 4 <= tokens.length; i++) {
    const key = tokens.slice(i, i + 4).map((t) => t.w).join(" ");
    const c = (counts.get(key) ?? 0) + 1;
    counts.set(key, c);
    if (c === 3) return tokens[i].at;
  }
  return null;
}

/** The words of the sentence being written are (so far) an earlier sentence's start: it may be a repeat. */
export function mayRepeat(text: string, ends: number[]): boolean {
  const last = ends.at(-1) ?? 0;
  const tail = words(text.slice(last));
  if (tail.length === 0) return false;
  let from = 0;
  for (const end of ends) {
    const w = words(text.slice(from, end));
    from = end;
    if (w.length >= 3 && tail.length <= w.length && tail.every((x, i) => (i === tail.length - 1 ? w[i].startsWith(x) : w[i] === x))) return true;
  }
  return false;
}
