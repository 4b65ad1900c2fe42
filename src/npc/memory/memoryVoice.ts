import { splitSentences } from "../replies/sentences.ts";
import { longestCommonRun, words } from "../replies/wordOverlap.ts";
import type { MemoryDraft } from "./types.ts";

type Turn = { role: "user" | "assistant"; content: string };

/** The player's first person in the third person, and the mind's, by pronoun (lower case). */
const AS_PLAYER: Record<string, string> = { "i'm": "they are", "i've": "they have", "i'll": "they will", "i'd": "they would", i: "they", myself: "themselves", my: "their", mine: "theirs", me: "them" };
/** The same at the start of a sentence copied from the player's line ("My brother Emrys is …"). */
const AS_PLAYER_SUBJECT: Record<string, string> = { "i'm": "The player is", "i've": "The player has", "i'll": "The player will", "i'd": "The player would", i: "The player", my: "The player's", mine: "The player's", me: "The player", myself: "The player" };
const AS_MIND: Record<string, (n: string) => string> = { "i'm": (n) => `${n} is`, "i've": (n) => `${n} has`, "i'll": (n) => `${n} will`, "i'd": (n) => `${n} would`, i: (n) => n, myself: (n) => n, my: (n) => `${n}'s`, mine: (n) => `${n}'s`, me: (n) => n };
const FIRST_SINGULAR = /\b(?:I'm|I've|I'll|I'd|I|myself|my|mine|me)\b/gi;
const SECOND_PERSON: [RegExp, (n: string) => string][] = [
  [/\byou're\b/gi, (n) => `${n} is`],
  [/\byou've\b/gi, (n) => `${n} has`],
  [/\byou'll\b/gi, (n) => `${n} will`],
  [/\byou'd\b/gi, (n) => `${n} would`],
  [/\byourself\b/gi, (n) => n],
  [/\byours?\b/gi, (n) => `${n}'s`],
  [/\byou\b/gi, (n) => n],
];
const FIRST = /\b(?:I|I'm|I've|I'll|I'd|me|my|mine|myself|we|we're|we'll|us|our|ours)\b/i;
const PLURAL = /\b(?:we|we're|we'll|us|our|ours)\b/i;
const SECOND = /\b(?:you|you're|you've|you'll|you'd|your|yours|yourself)\b/i;
/** A sentence that is about the player by its subject: "The player …", "The player's …". */
const ABOUT_PLAYER = /^\s*the player(?:'s)?\b/i;
/** A sentence sharing this many consecutive words with a line said is that line copied, not a memory of it. */
const COPIED_RUN = 6;

/**
 * Keeps memories in the mind's voice: facts about the player in the third person, never a line of the conversation
 * copied, never the mind's own small talk. Per sentence of a memory:
 * - one that opens "The player" and then slips into a first person copied from a line ("The player owes you 37
 *   dollars for the whiskey I drank") is put in the third person: a first person the player said (the pronoun with a word beside it as in their line: "whiskey I")
 *   becomes "they/their/them", one the mind said becomes the mind's name, and "you/your" (the mind, whom the summary
 *   addresses) the mind's name. Left as said, the next session's reply reads it as the mind's own words and reverses
 *   the debt ("I owe you 37 dollars"). A first person that neither said is ambiguous: the sentence is dropped.
 * - a sentence copied from the player's line in their first person ("My brother Emrys is one of your watchmen.") opens
 *   with the player instead ("The player's brother Emrys is one of <mind>'s watchmen."); any other sentence in the
 *   first or second person ("Well, I'm off to bed. Goodnight, Jory.") is a line of the conversation, not a
 *   memory: dropped.
 * - a sentence that repeats a run of COPIED_RUN words of a line the mind said, and of no line of the player's, is
 *   the mind's own talk: dropped (the mind repeating the player's "a fine of seven crowns" leaves it the
 *   player's fact); one that repeats a player's line without being about the player is a copy: dropped.
 * A memory with no sentence left is dropped.
 */
export function inMindsVoice(drafts: MemoryDraft[], mindName: string, messages: Turn[]): MemoryDraft[] {
  const name = mindName.trim() || "the character";
  const said = messages.map((m) => ({ role: m.role, words: words(m.content) }));
  const spoken = (role: Turn["role"]) => ` ${said.filter((m) => m.role === role).map((m) => m.words.join(" ")).join(" | ")} `;
  const lines = { player: spoken("user"), mind: spoken("assistant") };
  const out: MemoryDraft[] = [];
  for (const d of drafts) {
    const kept: string[] = [];
    for (const sentence of splitSentences(d.text)) {
      const s = voiced(sentence.trim(), name, lines);
      if (s === null) continue;
      const w = words(s);
      const copied = (role: Turn["role"]) => said.some((m) => m.role === role && longestCommonRun(w, m.words) >= Math.min(COPIED_RUN, w.length));
      // the mind repeating the player's fact ("…a fine of seven crowns") does not make the fact the mind's talk
      const copies = (copied("assistant") && !copied("user")) || (copied("user") && !ABOUT_PLAYER.test(s));
      if (!copies) kept.push(s);
    }
    if (kept.length) out.push({ ...d, text: kept.join(" ") });
  }
  return out;
}

/** The sentence in the third person, or null when it is someone's line rather than a fact about the player. */
function voiced(s: string, mindName: string, lines: { player: string; mind: string }): string | null {
  if (!FIRST.test(s) && !SECOND.test(s)) return s;
  if (PLURAL.test(s)) return null;
  const about = ABOUT_PLAYER.test(s);
  let ambiguous = false;
  let openedWithI = false;
  let t = s.replace(FIRST_SINGULAR, (m: string, offset: number, all: string) => {
    const before = all.slice(0, offset).match(/([\p{L}\p{N}']+)[^\p{L}\p{N}']*$/u)?.[1] ?? "";
    const after = all.slice(offset + m.length).match(/^[^\p{L}\p{N}']*([\p{L}\p{N}']+)/u)?.[1] ?? "";
    const key = m.toLowerCase();
    // the pronoun with the word before it or after it, as one of the lines said it
    const pairs = [before && ` ${before.toLowerCase()} ${key} `, after && ` ${key} ${after.toLowerCase()} `].filter((x): x is string => !!x);
    if (pairs.some((p) => lines.player.includes(p))) {
      if (about || offset !== 0) return AS_PLAYER[key];
      openedWithI = key === "i";
      return AS_PLAYER_SUBJECT[key];
    }
    // the mind's own first person: kept (as its name) only inside a fact about the player
    if (about && pairs.some((p) => lines.mind.includes(p))) return AS_MIND[key](mindName);
    ambiguous = true;
    return m;
  });
  // a sentence not about the player is one only when it opened with the player's own "I" or "my" (now "The player")
  if (ambiguous || !ABOUT_PLAYER.test(t)) return null;
  if (openedWithI) t = t.replace(/^The player ([a-z]+)\b/, (all, verb: string) => `The player ${thirdPerson(verb)}`);
  for (const [re, to] of SECOND_PERSON) t = t.replace(re, () => to(mindName));
  return t;
}

const UNCHANGED = new Set(["will", "would", "can", "could", "shall", "should", "may", "might", "must", "did", "was", "had", "is", "has", "owes", "just", "never", "always", "also", "still", "once"]);
const IRREGULAR: Record<string, string> = { have: "has", am: "is", do: "does", go: "goes" };

/** "I owe" made "The player owe": the verb after it in the third person ("owes"); modals and past forms stay. */
function thirdPerson(verb: string): string {
  if (IRREGULAR[verb]) return IRREGULAR[verb];
  if (UNCHANGED.has(verb) || verb.endsWith("ed") || verb.endsWith("s")) return verb;
  return /(?:ch|sh|x|o)$/.test(verb) ? `${verb}es` : `${verb}s`;
}
