import type { AvoidText } from "../../llm/types.ts";
import type { Problem, ReplyContext } from "./detectors.ts";
import { PROMPT_MARKERS } from "./detectors.ts";
import { words } from "./wordOverlap.ts";
import { STEER_COMMON_WORDS as COMMON } from "../../core/text/commonWords.ts";

/**
 * How far a steered resample pushes the failed sample's words down (a logit, added to each of their tokens). Chosen
 * by bench/steer.ts on the tuning worlds' small-talk lines (BENCHMARKS.md "Replies in character: the guard steers its
 * resamples"): strong enough that a copy of the player's line loses to another opening, not a ban, so a word the
 * answer needs can still be said when nothing else fits.
 */
export const STEER_LOGIT = -4;

/**
 * An assistant's refusal ("I'm sorry, but I can't assist with that."): what Qwen turns a blocked copy into
 * (bench/steer.ts: steering an echo away alone swapped echoes for refusals). Pushed down in every resample when the
 * policy asks for it, whatever the failed sample did wrong.
 */
export const REFUSAL_WORDS = ["sorry", "assist", "assistance", "apologize", "apologise", "unable"];

/** Number words a made-up number shares with numbers that may be right ("three hundred" beside "two hundred"). */
const SCALE_WORDS = new Set(["a", "an", "and", "hundred", "thousand", "million", "dozen"]);

/** An assistant's words, as the meta detector's assistant-voice patterns match them (detectors.ts META). */
const ASSISTANT_WORDS = ["assist", "assistance", "sorry", "AI", "language", "model", "help", "provided", "information", "context", "text", "notes", "according"];

/**
 * What the next sample should not say, from what the samples so far did wrong: after an echo, the player's line's
 * distinctive words (echoes copy the line from its first words, so the copy loses its path); after an assistant's voice
 * or talk about the notes, the words the meta detector matched and an assistant's stock words; after a recital of the
 * prompt, the recited marker's or line's words; after a copy of the example exchange, the copied words; after speaking as someone else, the name it took (and the player's
 * line, when the name was the player's); after a made-up number, that number's words; after a lore sentence recited beside the question, that sentence's words
 * but the question's. Other problems are left to the next seed alone: a repetition has no words
 * of its own to steer from. Each word as written, in lower case and capitalised, with and
 * without a leading space (a tokenizer gives a word mid-sentence another token than at the start).
 */
export function steerAway(problems: Problem[], c: ReplyContext, logit = STEER_LOGIT, refusals = false): AvoidText[] {
  const chosen = new Set<string>();
  if (refusals && problems.length) for (const w of REFUSAL_WORDS) chosen.add(w);
  for (const p of problems) {
    if (p.kind === "echo") for (const w of distinctive(c.playerLine)) chosen.add(w);
    else if (p.kind === "meta") {
      for (const w of distinctive(quoted(p.detail))) chosen.add(w);
      for (const w of ASSISTANT_WORDS) chosen.add(w.toLowerCase());
    } else if (p.kind === "wrongPerson") {
      // "I'm Tomas Reed" from the player's own introduction is an echo on its way: steer from the whole line. A name
      // of someone else, or the mind's own as a subject ("Bram Fenwick is"), from the name itself.
      const named = distinctive(quoted(p.detail)).filter((w) => w !== "name");
      const player = new Set(words(c.playerLine));
      if (named.some((w) => player.has(w))) for (const w of distinctive(c.playerLine)) chosen.add(w);
      // The player's own name, remembered: "Do you remember my name?" drew "My name is Rosalind" (the player's "my"
      // read as the mind's own). Pushing the name down made the resample unable to tell it back ("Yes, I remember
      // your name."); the claim's "my" is what went wrong.
      const theirs = new Set(words((c.playerFacts ?? []).join(" ")));
      const remembered = named.filter((w) => theirs.has(w) && !player.has(w));
      for (const w of named) if (!remembered.includes(w)) chosen.add(w);
      if (remembered.length && /^my\b/i.test(quoted(p.detail))) chosen.add("my");
    } else if (p.kind === "exampleCopy") {
      // the copied words themselves ("forty feet", "old well"): another opening than the example's
      for (const w of distinctive(quoted(p.detail))) chosen.add(w);
    } else if (p.kind === "promptEcho") {
      const marker = quoted(p.detail);
      const line = [...c.structuralLines, ...(c.hintLines ?? []), ...c.narrativeLines].find((l) => l.startsWith(marker)) ?? marker;
      for (const w of distinctive(line)) chosen.add(w);
      if (PROMPT_MARKERS.includes(marker.toLowerCase())) for (const w of distinctive(marker)) chosen.add(w);
    } else if (p.kind === "wrongAttribution") {
      // the person the fact was told of: the note's own name, or none, is what the next sample should reach for
      const person = /without (.+)$/.exec(p.detail)?.[1] ?? "";
      for (const w of distinctive(person)) chosen.add(w);
    } else if (p.kind === "unsupportedQuantity") {
      // The made-up number's words ("Eight", "thirty"), not its digits: a tokenizer splits "35" into 3 and 5, and
      // pushing those down would push down every number with them. Nor "hundred", "dozen": a number the prompt gives
      // may need them.
      for (const [, n] of p.detail.matchAll(/"([^"]*)"/g))
        for (const w of words(n)) if (/^\p{L}+$/u.test(w) && !SCALE_WORDS.has(w)) chosen.add(w);
    } else if (p.kind === "misnamed") {
      // the made-up word alone (the detail's first quote): the name's own words are what the next sample should say
      for (const w of distinctive(quoted(p.detail)).slice(0, 1)) chosen.add(w);
    } else if (p.kind === "offTopicRecital") {
      // the recited lore sentence's own words, never the question's: the answer may need those
      const asked = new Set(words(c.playerLine));
      for (const w of distinctive(quoted(p.detail))) if (!asked.has(w)) chosen.add(w);
    }
  }
  const out = new Map<string, AvoidText>();
  for (const w of chosen)
    for (const form of forms(w)) out.set(form, { text: form, logit });
  return [...out.values()];
}

/**
 * The steering of several failed samples together: each one's words, and a word two samples failed with pushed down
 * by both (a prompt that drew the same echo twice pulls hard: bench/steer.ts saw one steered once still echo).
 */
export function mergeAvoid(a: AvoidText[] | undefined, b: AvoidText[]): AvoidText[] | undefined {
  if (!b.length) return a;
  const out = new Map((a ?? []).map((x) => [x.text, x]));
  for (const x of b) out.set(x.text, { text: x.text, logit: x.logit + (out.get(x.text)?.logit ?? 0) });
  return [...out.values()];
}

/** The words of a text that are not common ones (two letters or more). */
export function distinctive(text: string): string[] {
  return [...new Set(words(text).filter((w) => w.length > 1 && !COMMON.has(w) && !/^\d+$/.test(w)))];
}

/** The text inside a problem's detail quotes (`"as an AI"` → as an AI; `5 words of "You are…"` → You are…). */
function quoted(detail: string): string {
  const m = /"([^"]*)"/.exec(detail);
  return (m ? m[1] : detail).replace(/…$/, "");
}

function forms(w: string): string[] {
  const cap = w[0].toUpperCase() + w.slice(1);
  const all = [w, cap, ...(w.length <= 3 ? [w.toUpperCase()] : [])];
  return [...new Set([...all, ...all.map((x) => ` ${x}`)])];
}
