import { splitSentences } from "../replies/sentences.ts";
import { statedNumbers } from "../replies/quantities.ts";
import { longestCommonRunAt, words } from "../replies/wordOverlap.ts";
import { normaliseMemoryText } from "./memoryText.ts";
import { inMindsVoice } from "./memoryVoice.ts";
import { DEFAULT_IMPORTANCE, unionTopics } from "./sanitiseDrafts.ts";
import { MAX_MEMORIES_PER_SUMMARY, type MemoryDraft } from "./types.ts";

type Turn = { role: "user" | "assistant"; content: string };

/** A statement the player made about themselves, in the third person, and the facts (names, numbers) it holds. */
export interface PlayerStatement {
  /** "The player's brother Emrys is one of Tibor Haska's watchmen." */
  text: string;
  /**
   * The names it holds, each its words in lower case (normaliseMemoryText) joined by a space: a run of capitalised
   * words after its first word, a possessive's "'s" and the words of the mind's own name aside ("My brother Emrys
   * rides for Tibor Haska's Watch" → ["emrys", "watch"]).
   */
  names: string[];
  numbers: number[];
}

/** A statement opens with the player's first person: "I …", "I'm …", "My …". */
const OPENS_FIRST = /^(?:I|I'm|I've|I'll|I'd|my)\b/i;
/** A greeting or a name before it: "Hello Garrick, my name is Ada." → "my name is Ada." */
const GREETING = /^[^,;:]{1,40}[,;:]\s*/;
const FIRST_PERSON_WORD = /^I(?:'m|'ve|'ll|'d)?$/i;
/** Longer than this, a statement is more than one fact: left to the summary. */
const MAX_STATEMENT_CHARS = 200;
/** A word of a sentence, apostrophes inside kept ("Corvin's", "O'Brien"). */
const WORD = /[\p{L}\p{N}]+(?:'[\p{L}\p{N}]+)*/gu;
/**
 * Words that only say a name is one ("The player's name is Tobin." says no more than "The player is Tobin, a smith."),
 * and a possessive's "s" (normaliseMemoryText splits "player's" in two): a memory is not more than a statement for them.
 */
const NAMING = new Set(["name", "named", "s"]);
/** Words a memory must share, from its predicate's start, with a statement about someone else to have taken it over. */
const BORROWED_RUN = 4;

/**
 * The player's statements about themselves that hold a name or a number ("Hello, Warden. My name is Rosalind Tey."
 * → "The player's name is Rosalind Tey."), each in the mind's voice (memoryVoice.ts). Questions are not statements;
 * neither is a sentence the voice check cannot put in the third person.
 */
export function playerStatements(mindName: string, messages: Turn[]): PlayerStatement[] {
  const mind = new Set(normaliseMemoryText(mindName).split(" "));
  const out: PlayerStatement[] = [];
  for (const m of messages) {
    if (m.role !== "user") continue;
    for (const sentence of splitSentences(m.content)) {
      if (sentence.endsWith("?")) continue;
      const clause = OPENS_FIRST.test(sentence) ? sentence : sentence.replace(GREETING, "");
      if (!OPENS_FIRST.test(clause)) continue;
      const names = namesOf(clause, mind);
      // "one of your watchmen" is no amount: the word "one" alone is not a number a memory must keep
      const numbers = statedNumbers(clause).filter((n) => n.text.toLowerCase() !== "one").map((n) => n.value);
      if (!names.length && !numbers.length) continue;
      const voiced = inMindsVoice([{ text: clause, importance: DEFAULT_IMPORTANCE, topics: [] }], mindName, messages)[0]?.text;
      if (!voiced || !/^The player\b/.test(voiced) || voiced.length > MAX_STATEMENT_CHARS) continue;
      out.push({ text: voiced, names, numbers });
    }
  }
  return out;
}

/** The names of a first-person clause: runs of capitalised words after its first (PlayerStatement.names). */
function namesOf(clause: string, mind: Set<string>): string[] {
  const text = clause.replace(/[’‘]/g, "'");
  const runs: string[][] = [];
  let end = -1;
  for (const t of [...text.matchAll(WORD)].slice(1)) {
    const capital = /^\p{Lu}/u.test(t[0]) && !FIRST_PERSON_WORD.test(t[0]);
    if (capital) {
      const w = normaliseMemoryText(t[0].replace(/'s$/i, "")).split(" ").filter((x) => x && !mind.has(x));
      // "Rosalind Tey" is one name: words joined by a space only
      if (end >= 0 && /^\s+$/.test(text.slice(end, t.index))) runs.at(-1)!.push(...w);
      else runs.push(w);
    }
    end = capital ? t.index! + t[0].length : -1;
  }
  return [...new Set(runs.filter((r) => r.length).map((r) => r.join(" ")))];
}

/**
 * Drops a sentence that made the player the subject of what they said of someone else: from "My brother Emrys is one
 * of your watchmen." a summary wrote "The player is one of your watchmen." (Qwen2.5-0.5B, 6 of 6 seeds on a session
 * of short replies). Such a sentence opens "The player" and then the words that followed another subject in the
 * player's statement ("The player's brother Emrys …"), and names nothing of that subject. A memory with no sentence
 * left is dropped.
 */
export function withoutBorrowedSubjects(drafts: MemoryDraft[], statements: PlayerStatement[]): MemoryDraft[] {
  const others = statements.map((s) => words(s.text)).filter((w) => w[1] === "player's" && w.length > 2);
  const borrowed = (sentence: string) => {
    const w = words(sentence);
    if (w[0] !== "the" || w[1] !== "player") return false;
    const predicate = w.slice(2);
    return others.some((o) => {
      const run = longestCommonRunAt(predicate, o);
      const subject = o.slice(2, run.atB);
      return run.length >= BORROWED_RUN && run.at === 0 && subject.length > 0 && !subject.some((x) => w.includes(x));
    });
  };
  const out: MemoryDraft[] = [];
  for (const d of drafts) {
    const kept = splitSentences(d.text).filter((s) => !borrowed(s));
    if (kept.length) out.push({ ...d, text: kept.join(" ") });
  }
  return out;
}

/**
 * The memories, and after them each statement of the player's that they do not hold: a small model's summary
 * sometimes loses a fact the player stated outright (the brother of "My brother Emrys is one of your watchmen." in
 * 6 of 6 seeds when the session's replies were short: BENCHMARKS.md "Replies in character: the memory summary on
 * short sessions"), or keeps half of a statement ("The player's name is Rosalind." of "My name is Rosalind Tey and my
 * brother Emrys rides for the Warden.").
 *
 * A statement is held when the memories together hold every name and every number it holds: a name when one memory
 * holds all its words (in any case, in any order), a number in any of its forms ("seven" and "7" alike). Together,
 * not one memory alone: a summary often splits a statement of two facts into two memories, and the statement added
 * beside them would say both again. A statement that is added takes the place of every memory that says nothing it
 * does not, a naming's words aside ("The player's name is Rosalind." above), so no fact is stored twice; the
 * memory's importance and topics go with it. At most MAX_MEMORIES_PER_SUMMARY in all.
 */
export function withMissedStatements(drafts: MemoryDraft[], statements: PlayerStatement[]): MemoryDraft[] {
  let out = [...drafts];
  for (const s of statements) {
    const held = out.map((d) => memoryWords(d.text));
    const heldNumbers = new Set(out.flatMap((d) => statedNumbers(d.text).map((n) => n.value)));
    const holdsName = (name: string) => held.some((w) => name.split(" ").every((x) => w.has(x)));
    if (s.names.every(holdsName) && s.numbers.every((n) => heldNumbers.has(n))) continue;
    const said = memoryWords(s.text);
    const parts = out.filter((_, i) => [...held[i]].every((w) => said.has(w) || NAMING.has(w)));
    if (!parts.length && out.length >= MAX_MEMORIES_PER_SUMMARY) continue;
    const added: MemoryDraft = {
      text: s.text,
      importance: Math.max(DEFAULT_IMPORTANCE, ...parts.map((d) => d.importance)),
      // no more topics than one of them had: a memory holds as many as a summary's schema lets one have
      topics: parts.reduce<string[]>((t, d) => unionTopics(t, d.topics, Math.max(...parts.map((x) => x.topics.length))), []),
    };
    const at = parts.length ? out.indexOf(parts[0]) : out.length;
    out = [...out.slice(0, at), added, ...out.slice(at)].filter((d) => !parts.includes(d));
  }
  return out;
}

/** A memory's words, lower case (normaliseMemoryText: "Emrys's" is "emrys s"), each number as its value ("#7"). */
function memoryWords(text: string): Set<string> {
  const numbers = statedNumbers(text);
  const numberWords = new Set(numbers.flatMap((n) => normaliseMemoryText(n.text).split(" ")));
  const out = new Set(normaliseMemoryText(text).split(" ").filter((w) => w && !numberWords.has(w)));
  for (const n of numbers) out.add(`#${n.value}`);
  return out;
}
