import { splitSentences } from "../replies/sentences.ts";
import { statedNumbers } from "../replies/quantities.ts";
import { longestCommonRunAt, words } from "../replies/wordOverlap.ts";
import { normaliseMemoryText } from "./memoryText.ts";
import { inMindsVoice } from "./memoryVoice.ts";
import { DEFAULT_IMPORTANCE } from "./sanitiseDrafts.ts";
import { MAX_MEMORIES_PER_SUMMARY, type MemoryDraft } from "./types.ts";

type Turn = { role: "user" | "assistant"; content: string };

/** A statement the player made about themselves, in the third person, and the facts (names, numbers) it holds. */
export interface PlayerStatement {
  /** "The player's brother Emrys is one of Tibor Haska's watchmen." */
  text: string;
  /** lower case: the capitalised words after its first one, the mind's name aside */
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
/** Words a memory must share, from its predicate's start, with a statement about someone else to have taken it over. */
const BORROWED_RUN = 4;

/**
 * The player's statements about themselves that hold a name or a number ("Hello, Warden. My name is Rosalind Tey."
 * → "The player's name is Rosalind Tey."), each in the mind's voice (memoryVoice.ts). Questions are not statements;
 * neither is a sentence the voice check cannot put in the third person.
 */
export function playerStatements(mindName: string, messages: Turn[]): PlayerStatement[] {
  const mind = new Set(words(mindName));
  const out: PlayerStatement[] = [];
  for (const m of messages) {
    if (m.role !== "user") continue;
    for (const sentence of splitSentences(m.content)) {
      if (sentence.endsWith("?")) continue;
      const clause = OPENS_FIRST.test(sentence) ? sentence : sentence.replace(GREETING, "");
      if (!OPENS_FIRST.test(clause)) continue;
      const raw = clause.replace(/[’‘]/g, "'").match(/[\p{L}\p{N}]+(?:'[\p{L}\p{N}]+)*/gu) ?? [];
      const names = raw.slice(1).filter((w) => /^\p{Lu}/u.test(w) && !FIRST_PERSON_WORD.test(w)).map((w) => w.toLowerCase()).filter((w) => !mind.has(w));
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
 * The memories, and after them each statement of the player's whose names and numbers none of them holds: a small
 * model's summary sometimes loses a fact the player stated outright (the brother of "My brother Emrys is one of your
 * watchmen." in 6 of 6 seeds when the session's replies were short: BENCHMARKS.md "Replies in character: the memory
 * summary on short sessions"). A statement counts as kept when a memory holds one of its numbers ("seven" and "7"
 * alike) or, when it states none, one of its names, so a paraphrase is never stored twice. At most
 * MAX_MEMORIES_PER_SUMMARY in all.
 */
export function withMissedStatements(drafts: MemoryDraft[], statements: PlayerStatement[]): MemoryDraft[] {
  const out = [...drafts];
  for (const s of statements) {
    if (out.length >= MAX_MEMORIES_PER_SUMMARY) break;
    const held = out.map((d) => d.text).join("\n");
    const heldWords = new Set(words(held));
    const heldNumbers = new Set(statedNumbers(held).map((n) => n.value));
    // a statement with an amount is held by a memory of the amount: "The player is a court jester." names the Court
    // of "I owe the Court a fine of four marks" and keeps nothing of it (SmolLM2-135M)
    if (s.numbers.length ? s.numbers.some((n) => heldNumbers.has(n)) : s.names.some((n) => heldWords.has(n))) continue;
    if (out.some((d) => normaliseMemoryText(d.text) === normaliseMemoryText(s.text))) continue;
    out.push({ text: s.text, importance: DEFAULT_IMPORTANCE, topics: [] });
  }
  return out;
}
