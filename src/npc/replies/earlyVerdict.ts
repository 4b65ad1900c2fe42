import { echoOf, exampleCopy, metaTalk, promptEcho, roleLabel, wrongPerson, nameForms, type Problem, type ReplyContext } from "./detectors.ts";
import { words } from "./wordOverlap.ts";
import { sentenceEnds } from "./sentences.ts";

/** The most a streamed reply is held back while its opening is judged (characters; ~12-16 tokens of English). */
export const HOLD_MAX_CHARS = 64;
/** The most held while the reply repeats the player's line word for word. */
export const ECHO_HOLD_MAX_CHARS = 240;

export type Verdict = { kind: "hold" } | { kind: "pass" } | { kind: "fail"; problem: Problem };

/** Openings that may still become a failure: the word sequences the held text is compared with (the player's line first). */
export function riskyOpenings(c: ReplyContext): string[][] {
  const names = nameForms(c.mindName);
  return [
    words(c.playerLine),
    ...names.map((n) => words(`you are ${n}`)),
    ...names.map((n) => words(`${n}:`)),
    ...["player", "user", "assistant", "system", "npc", "narrator"].map((r) => [r]),
    words("according to the"),
    words("as an ai"),
    words("i am an ai language model"),
    words("i'm an ai"),
    words("the notes"),
    words("in the notes"),
    words("the player"),
    words("people you know"),
    words("things you tend to do"),
    words("rules you never break"),
    words("what you know"),
    ...c.noteNames.map((n) => words(`about ${n}`)),
    ...c.structuralLines.map(words),
    // a reply that copies the example starts with its answer's or its note's first words
    ...(c.example?.lines ?? []).map(words),
  ].filter((w) => w.length > 0);
}

/**
 * What can be said of a reply's opening before it is streamed: a failure (echo of the player's line, meta talk, a
 * role label, prompt echo, speaking as someone else) ends the attempt before anything reaches the client; an
 * opening that is still the start of one of the risky sequences is held; anything else passes. Small models that
 * echo start with the player's first words, so a reply that diverges is released after a word or two.
 */
export function earlyVerdict(text: string, c: ReplyContext, openings: string[][], final = false): Verdict {
  const problem = earlyProblem(text, c);
  if (problem) return { kind: "fail", problem };
  if (final) return { kind: "pass" };
  const w = words(text);
  if (w.length === 0) return { kind: "hold" };
  // A reply still on the player's own words is held to the length of that line (an echo is told only by its length).
  if (text.length < ECHO_HOLD_MAX_CHARS && startsLike(w, openings[0] ?? [])) return { kind: "hold" };
  if (text.length >= HOLD_MAX_CHARS) return { kind: "pass" };
  // The last word may be incomplete: compare it as a prefix.
  return openings.some((o) => startsLike(w, o)) ? { kind: "hold" } : { kind: "pass" };
}

/**
 * What of the detectors' findings can be told from the start of a reply. `midSentence`: the text ends inside a
 * sentence, so only the phrase checks run (a phrase once written stays in the reply); an echo is told by its length
 * against the sentence's, so it waits for the sentence to end.
 */
export function earlyProblem(text: string, c: ReplyContext, midSentence = false): Problem | null {
  const checks: [Problem["kind"], string | null][] = [
    ["echo", midSentence ? null : echoOf(text, c.playerLine)],
    ["meta", metaTalk(text)],
    ["roleLabel", roleLabel(text, c.mindName)],
    ["promptEcho", promptEcho(text, c)],
    // Told by how much of the reply the example's words make up: only once a sentence has ended ("Forty feet" may go on).
    ["exampleCopy", midSentence || !endsSentence(text) ? null : exampleCopy(text, c)],
    ["wrongPerson", wrongPerson(text, c)],
  ];
  for (const [kind, detail] of checks) if (detail !== null) return { kind, detail };
  return null;
}

function endsSentence(text: string): boolean {
  const t = text.trimEnd();
  return t.length > 0 && sentenceEnds(t).at(-1) === t.length;
}

/** `w` (the held words, the last perhaps cut) is the start of `o`. */
function startsLike(w: string[], o: string[]): boolean {
  if (w.length === 0 || w.length > o.length) return false;
  for (let i = 0; i < w.length - 1; i++) if (w[i] !== o[i]) return false;
  return o[w.length - 1].startsWith(w[w.length - 1]);
}
