import { holdsRun, longestCommonRun, longestCommonRunAt, maxNgramCount, words } from "./wordOverlap.ts";
import { splitSentences } from "./sentences.ts";
import { leakOf, type SecretTerms } from "../secrets/secretTerms.ts";
import type { AttributionSources } from "./attribution.ts";
import type { NumberSource } from "./numberPlaces.ts";
import type { NameSources } from "./misnamed.ts";

/**
 * What makes a reply out of character, one pure check each (the reply guard resamples on them; bench/quality.ts
 * counts them). Each is measured on real small models' replies: parroting the player's line, talking about the
 * notes, role labels, reciting the system prompt, speaking as someone else, saying the same thing twice.
 */
export type ProblemKind =
  | "empty"
  | "echo"
  | "meta"
  | "roleLabel"
  | "promptEcho"
  | "exampleCopy"
  | "wrongPerson"
  | "secretLeak"
  | "repetition"
  | "repeatsPrevious"
  | "overLength"
  // not a slip of character but a made-up fact: found by the reply guard alone (quantities.ts), never by replyProblems
  | "unsupportedQuantity"
  // a fact told of someone the prompt does not tell it of (attribution.ts): the guard's too, like a made-up number
  | "wrongAttribution"
  // a lore sentence recited that does not answer the question: the reply guard alone too (recitedLine.ts)
  | "offTopicRecital"
  | "misnamed";

export interface Problem {
  kind: ProblemKind;
  detail: string;
}

export interface ReplyContext {
  /** what the player said this turn */
  playerLine: string;
  /** the mind's name as written (entityName) */
  mindName: string;
  /** other people's names the mind knows (relationships): claiming one is speaking as someone else */
  otherNames: string[];
  /** lines of the system prompt that only say how to behave or who is who (identity, location, relationships, rules, restrictions) */
  structuralLines: string[];
  /**
   * the mind's hints ("- Mentions that the watch pays a silver crown"): their content is meant to be said, so only a
   * reply that recites one from its first words (the instruction itself) echoes the prompt
   */
  hintLines?: string[];
  /** lines that describe the mind in prose (personality, backstory, speaking style): only verbatim recitation counts */
  narrativeLines: string[];
  /** names of the lore notes' documents ("About <name>:" in a reply is the notes' heading) */
  noteNames: string[];
  /** the mind's own previous line in this conversation */
  previousReply: string | null;
  maxSentences: number;
  /** the secrets this turn's prompt carries, by what would give each away (src/npc/secrets/secretTerms.ts) */
  secrets: SecretTerms[];
  /** a scene's turn: what others said aloud before it (src/scenes); repeating one as the mind's own is an echo */
  heardLines?: string[];
  /** what the mind remembers of the player this turn (their memories): a name there is the player's to be told back */
  playerFacts?: string[];
  /**
   * The example exchange a base model reads before the turn (src/llm/transcriptTurn.ts `exampleLines`): its answer
   * and its note, which a reply must not pass off as its own; `known`, the mind's own texts this turn (persona, notes,
   * the player's words), where a run of the example's words is the mind's to say.
   */
  example?: { lines: string[]; known: string[] };
  /**
   * every number the turn's prompt states (quantities.ts givenNumbers): a reply's number outside them is made up.
   * Absent: the reply's numbers are not checked.
   */
  givenNumbers?: number[];
  /**
   * the prompt's sentences read for the numbers each gives (numberPlaces.ts, read on the first reply that states a
   * given number) and the numbers the player's lines hold: a reply's number given only for another thing is misplaced.
   * Absent: not checked.
   */
  numberPlaces?: { sources: () => NumberSource[]; said: number[] };
  /** the words and names of the prompt and the player's lines (misnamed.ts, read on first need); absent: not checked */
  names?: () => NameSources;
  /**
   * the prompt's sentences and the people the mind knows (attribution.ts attributionSources): a reply that tells a
   * fact of one of them that the prompt tells of no one by that name is a wrong attribution. Absent: not checked.
   */
  attribution?: AttributionSources;
  /** the sentences of the lore the turn carries (recitedLine.ts loreSentences); absent: recitals are not checked */
  loreLines?: string[];
}

/** Every problem of a reply, in a fixed order. */
export function replyProblems(reply: string, c: ReplyContext): Problem[] {
  const out: Problem[] = [];
  const add = (kind: ProblemKind, detail: string | null) => detail !== null && out.push({ kind, detail });
  if (reply.trim() === "") return [{ kind: "empty", detail: "nothing was said" }];
  add("echo", echoOf(reply, c.playerLine) ?? heardEcho(reply, c.heardLines ?? []));
  add("meta", metaTalk(reply) ?? endsAtNotes(reply));
  add("roleLabel", roleLabel(reply, c.mindName));
  add("promptEcho", promptEcho(reply, c));
  add("exampleCopy", exampleCopy(reply, c));
  add("wrongPerson", wrongPerson(reply, c));
  add("secretLeak", leakOf(reply, c.secrets));
  add("repetition", repetition(reply));
  add("repeatsPrevious", repeatsPrevious(reply, c.previousReply));
  add("overLength", overLength(reply, c.maxSentences));
  return out;
}

/**
 * The reply repeats the player's line as its own: most of the line's words in one run (≥ 70 % of a line of four
 * words or more), or a reply that is itself mostly a run of six or more of the player's words. A question counts only when the run holds the question itself, from its first word: an answer
 * naturally restates what was asked ("Who owns the Salt Kettle?" → "Ferro Lund owns the Salt Kettle.").
 */
export function echoOf(reply: string, playerLine: string): string | null {
  const p = words(playerLine);
  if (p.length < 4) return null;
  const r = words(reply);
  const question = playerLine.trim().endsWith("?");
  const run = question ? longestRunFromStart(r, p) : longestCommonRun(r, p);
  if (run >= 4 && run >= 0.7 * p.length) return `${run} of the player's ${p.length} words in a row`;
  // "Repeat after me: …" answered with the part to repeat: the reply is the player's words, if not all of them.
  if (!question && run >= 6 && run >= 0.8 * r.length) return `${run} of the reply's ${r.length} words are the player's, in a row`;
  return null;
}

/**
 * A scene: the reply repeats a line someone else said aloud before it, as a statement (a 0.5B model asked what
 * another mind was just asked answered with that mind's answer, word for word).
 */
export function heardEcho(reply: string, lines: string[]): string | null {
  for (const line of lines) {
    const e = echoOf(reply, line.trim().replace(/\?+$/, "."));
    if (e) return e.replace("the player's", "a heard line's");
  }
  return null;
}

/** The longest run of `p`'s words, from its first, found anywhere in `r`. */
function longestRunFromStart(r: string[], p: string[]): number {
  let best = 0;
  for (let j = 0; j < r.length; j++) {
    let k = 0;
    while (j + k < r.length && k < p.length && r[j + k] === p[k]) k++;
    if (k > best) best = k;
  }
  return best;
}

const META: RegExp[] = [
  /\baccording to (the|my|these|those|this|your)\b[^.!?\n]{0,60}\b(section|notes?|lore|document|text|passage|information|context|records?|entry|article|instructions?|messages?|content|descriptions?|paragraph|excerpt|snippet|prompt|data)\b/i,
  // The opening alone gives it away: a reply cut short at "According to the provided" is still talk about the notes.
  /\baccording to (the|my|these|this|your) (provided|given|above|following|available)\b/i,
  // A reply that ends on "the provided" was cut at the prompt's heading that came next ("… in the provided [Lore]").
  /\b(the|my|these|this|your) (provided|given|above)\s*$/i,
  /\b(given|provided|above) (text|information|context|notes?|lore|passage|narrative|descriptions?|content|paragraph|excerpt|snippet)\b/i,
  /\b(excerpt|paragraph|snippet) (provided|given|above)\b/i,
  /\b(can be|is) found in the (notes?|lore|text|document|passage|context|information|content)\b/i,
  /\b(in|from) (the|my|these|your) (notes?|lore|documents?|passages?|context|instructions|system prompt|provided text)\b/i,
  /\bthe (provided|given|above) (text|information|context|notes?|lore|passage|narrative|descriptions?)\b/i,
  /\bbased on (the|my|these|this|your)\b[^.!?\n]{0,40}\b(narrative|narration|descriptions?|information|text|notes?|lore|context|passages?|details|story|document|content|paragraph|excerpt|snippet|prompt|data)\b/i,
  /\bdesigned to (interact|assist|help|answer)\b/i,
  // An assistant's voice, not a character's.
  /\b(I can('|no)?t|I'm unable to|I am unable to|I cannot) (assist|help)( you)? with (that|this)\b/i,
  /\bhow (can|may) I (assist|help) you( today)?\?/i,
  /\banything (else |specific )?(you'd|you would) like to (know|discuss|ask)\b/i,
  /\breal-time (news|information|data)\b/i,
  // An assistant's refusal of a question it reads as politics ("This might be a sensitive and political issue, and I
  // won't comment on or express opinions about political issues"): its stock phrases, not a character's talk of politics.
  /\bexpress(ing)? (my |personal |any )?opinions (about|on) (political|sensitive)\b/i,
  /\bsensitive and political\b/i,
  // An assistant's refusal of a question it reads as about a story ("This is a plot summary, and I don't have access
  // to information about …", "a fact about a fictional game character").
  /\bplot summary\b/i,
  /\bfictional (game |story )?(characters?|world|setting)\b/i,
  /\b(have|has) (no )?access to (any )?(personal |real-time |specific )?(information|knowledge|data)\b/i,
  /\b(in|of) (the|this) (game|roleplay|role-play|story)\b(?! of)/i,
  /\b(descriptions?|information|details|text|context) provided\b/i,
  /\bthe (text|passage|narrative|context|document) (does not|doesn't|says|mentions|states|describes)\b/i,
  /\bas an ai\b/i,
  /\b(an?|the) (ai|artificial intelligence)( language)? (model|assistant)\b/i,
  /\blanguage model\b/i,
  /\bI('m| am) (just |only )?(an? )?(ai|assistant|chatbot|bot|virtual assistant)\b/i,
  /\bsystem prompt\b/i,
  // A character never speaks of JSON: a small model announcing the tail it is about to write ("here's the JSON object:").
  /\bjson\b/i,
  /\bmy (instructions|programming|training data)\b/i,
  /\b(lore|the) notes\b/i,
  /\bthe player\b/i,
  /\bin character\b/i,
  /\[(lore|player|scene|now)\]/i,
];

/** Talk about the prompt instead of the world ("According to the Ninefold section…", "as an AI"). */
export function metaTalk(reply: string): string | null {
  for (const re of META) {
    const m = re.exec(reply);
    if (m) return `"${m[0]}"`;
  }
  return null;
}

/**
 * A finished reply that ends on "Based on the" or "…, according to the" was cut where the notes' heading came next
 * ("Based on the [Lore]"). Read on the finished text only: while a sample streams, "according to the" may still go on
 * to "the old ledger".
 */
export function endsAtNotes(reply: string): string | null {
  const m = /\b(based on|according to) (the|my|these|this|your)\s*[.,;:]?\s*$/i.exec(reply);
  return m ? `"${m[0].trim()}" at its end` : null;
}

const ROLE_WORDS = "player|user|assistant|system|model|npc|narrator|human|ai";

/**
 * A turn's heading in the prompt's own form: a line that is nothing but a bracketed name (`[Player]`, `[Idris Vane]`,
 * or one the model made up). The prompt opens every turn so (src/npc/prompt/renderTurn.ts, and the reply's own turn
 * on a model without a chat template, src/llm/transcriptChatWrapper.ts): such a line starts a turn, it is no speech.
 */
const HEADING_LINE = /(^|\n)[ \t]*(\[[^[\]\n]{1,60}\])[ \t]*(?=\n|$)/;

/** A line opening with a speaker label: a role ("Player:", "Assistant:") or the mind's own name ("Idris Vane:", "**Idris:**"), or a heading line ("[Idris Vane]"). */
export function roleLabel(reply: string, mindName: string): string | null {
  const names = nameForms(mindName).map(escape).join("|");
  const re = new RegExp(`(^|\\n)[ \\t]*\\**[ \\t]*(${ROLE_WORDS}${names ? `|${names}` : ""})[ \\t]*\\**[ \\t]*:`, "i");
  const m = re.exec(reply);
  if (m) return `"${m[2]}:"`;
  const h = HEADING_LINE.exec(reply);
  return h ? `"${h[2]}"` : null;
}

/** Fixed pieces of the system prompt and the turn's layout (src/npc/prompt): a reply holding one recites the prompt. */
export const PROMPT_MARKERS = [
  "people you know:",
  "things you tend to do:",
  "rules you never break:",
  "what you know:",
  "personality:",
  "backstory:",
  "speaking style:",
  "a character in a game",
  "stay in character",
  "never mention these instructions",
  "your knowledge of the world is",
  "keep it to yourself",
  "not yours to tell",
];

/** The reply recites the system prompt: its fixed pieces, its identity line, a note's heading, or long runs of its lines. */
export function promptEcho(reply: string, c: Pick<ReplyContext, "mindName" | "structuralLines" | "narrativeLines" | "noteNames" | "hintLines">): string | null {
  const lower = reply.toLowerCase();
  for (const m of PROMPT_MARKERS) if (lower.includes(m)) return `"${m}"`;
  if (new RegExp(`\\byou are ${escape(c.mindName)}\\b`, "i").test(reply)) return `"You are ${c.mindName}"`;
  for (const n of c.noteNames) if (n && lower.includes(`about ${n.toLowerCase()}:`)) return `"About ${n}:"`;
  const r = words(reply);
  for (const line of c.structuralLines) {
    const l = words(line);
    if (l.length < 4) continue;
    const run = longestCommonRun(r, l);
    if (run >= 5 && run >= 0.6 * l.length) return `${run} words of "${line.slice(0, 60)}"`;
  }
  for (const line of c.hintLines ?? []) {
    const l = words(line);
    if (l.length < 4) continue;
    const run = longestRunFromStart(r, l);
    if (run >= 5 && run >= 0.6 * l.length) return `${run} words of "${line.slice(0, 60)}"`;
  }
  for (const line of c.narrativeLines) {
    const l = words(line);
    const run = longestCommonRun(r, l);
    if (run >= 8 && run >= 0.8 * l.length) return `${run} words of "${line.slice(0, 60)}"`;
  }
  return null;
}

/**
 * The reply copies the example exchange (its answer, or its note's title or text) instead of answering: a long run of
 * one of its lines (five words or more, at least 60 % of the line), the whole of a line of three words or more, or a
 * reply that is mostly the example's words (a run of three or more, or the opening two of its answer, making 80 % of
 * the reply's words other than the question's: "Forty feet.", "The old well.", "Forty feet to Castermere."). Word
 * overlap after normalising (case, punctuation). A run that the
 * mind's own texts hold too (a world that has an old well) is the mind's, not a copy.
 */
export function exampleCopy(reply: string, c: Pick<ReplyContext, "example"> & { playerLine?: string }): string | null {
  const lines = c.example?.lines ?? [];
  if (!lines.length) return null;
  const r = words(reply);
  if (r.length === 0) return null;
  const asked = new Set(words(c.playerLine ?? ""));
  let known: string[][] | null = null;
  for (const line of lines) {
    const l = words(line);
    const { length: run, at, atB } = longestCommonRunAt(r, l);
    if (run < 2) continue;
    const long = run >= 5 && run >= 0.6 * l.length;
    const whole = run === l.length && run >= 3;
    // The question's own words around the copy do not make it an answer ("Forty feet to Castermere.").
    const rest = r.filter((w, i) => (i < at || i >= at + run) && !asked.has(w)).length;
    const mostly = run >= 0.8 * (run + rest) && (run >= 3 || atB === 0);
    if (!long && !whole && !mostly) continue;
    const piece = r.slice(at, at + run);
    known ??= (c.example?.known ?? []).map(words);
    if (known.some((k) => holdsRun(k, piece))) continue;
    return `"${piece.join(" ")}": ${run} of the example's ${l.length} words`;
  }
  return null;
}

/** What follows a name used as a subject: a common verb, or any present-tense third-person one ("hears", "makes"). */
const SELF_VERBS = "is|was|has|had|will|would|can|could|may|might|must|shall|should|does|did|said|told|came|went|knew|thought|kept|made|sold|lived|loved|hated|\\p{Ll}+s";

/**
 * The reply speaks as someone else: claims another name ("My name is Corra Vell", "I'm Pip" from Idris) or tells
 * of the mind in the third person at a sentence's start ("Idris Vane is the keeper…").
 */
export function wrongPerson(reply: string, c: Pick<ReplyContext, "mindName" | "otherNames" | "playerLine">): string | null {
  const own = new Set(nameForms(c.mindName).flatMap((n) => n.toLowerCase().split(/\s+/)));
  const claim = /\b(?:[Mm]y name is|[Mm]y name's|I am|I'm|[Cc]all me|[Tt]he name's|[Nn]ame's)\s+((?:\p{Lu}[\p{L}'-]+)(?:\s+\p{Lu}[\p{L}'-]+)?)/gu;
  const others = new Set([...c.otherNames.flatMap((n) => n.toLowerCase().split(/\s+/)), ...playerNames(c.playerLine)]);
  for (const m of reply.matchAll(claim)) {
    const first = m[1].split(/\s+/)[0].toLowerCase();
    if (own.has(first)) continue;
    const sayingName = /name/i.test(m[0]) || /call me/i.test(m[0]);
    if (sayingName || others.has(first)) return `"${m[0]}"`;
  }
  const forms = nameForms(c.mindName).map(escape).join("|");
  if (forms) {
    // The mind's name as a subject ("Idris Vane is…", "…and Garrick makes sure…") or an owner ("Bram Fenwick's captain").
    const third = new RegExp(`\\b(${forms})(?:'s\\b|\\s+(?:(?:also|never|always|just|only|often)\\s+)?(${SELF_VERBS})\\b)`, "u").exec(reply);
    if (third && !/\b(I am|I'm|my name is|call me|name's|I,)\s*$/i.test(reply.slice(0, third.index))) return `"${third[0]}"`;
  }
  return null;
}

/** Says the same thing twice within the reply: a repeated sentence, or a run of words over and over. */
export function repetition(reply: string): string | null {
  const seen = new Set<string>();
  for (const s of splitSentences(reply)) {
    const w = words(s);
    if (w.length < 3) continue;
    const key = w.join(" ");
    if (seen.has(key)) return `"${s.slice(0, 60)}" twice`;
    seen.add(key);
  }
  const w = words(reply);
  if (maxNgramCount(w, 3) >= 3) return "three words three times";
  if (maxNgramCount(w, 5) >= 2) return "five words twice";
  return null;
}

/** The mind says (nearly) its previous line again. */
export function repeatsPrevious(reply: string, previous: string | null): string | null {
  if (!previous) return null;
  const [a, b] = [words(reply), words(previous)];
  if (a.length === 0 || b.length === 0) return null;
  if (a.join(" ") === b.join(" ")) return "the same line as last time";
  const run = longestCommonRun(a, b);
  return run >= 6 && run >= 0.7 * Math.min(a.length, b.length) ? `${run} words of its previous line` : null;
}

export function overLength(reply: string, maxSentences: number): string | null {
  const n = splitSentences(reply).length;
  return n > maxSentences ? `${n} sentences (at most ${maxSentences})` : null;
}

/** Titles that are not part of how a person is called by name. */
const TITLES = new Set(["sister", "brother", "captain", "warden", "old", "master", "mistress", "lady", "lord", "sir", "father", "mother", "the", "sergeant", "dame"]);

/** The mind's full name and its first name without a title ("Sister Aveline Morrow" → Sister Aveline Morrow, Aveline Morrow, Aveline). */
export function nameForms(name: string): string[] {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  const bare = parts.filter((p, i) => !(i < parts.length - 1 && TITLES.has(p.toLowerCase())));
  const forms = new Set<string>([name.trim(), bare.join(" ")]);
  if (bare.length > 1 && bare[0].length > 2) forms.add(bare[0]);
  return [...forms].filter((f) => f.length > 1);
}

/** Names the player gave themself ("My name is Corra Vell", "I'm Hal Brisk"). */
function playerNames(line: string): string[] {
  const m = /\b(?:[Mm]y name is|I am|I'm|[Cc]all me|[Nn]ame's)\s+(\p{Lu}[\p{L}'-]+)/u.exec(line);
  return m ? [m[1].toLowerCase()] : [];
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
