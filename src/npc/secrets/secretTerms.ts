import { words } from "../replies/wordOverlap.ts";

/**
 * What would give a secret away: the words of a kept secret that nothing else in the turn says (not the persona,
 * not the other notes, not the player). A reply holding two of them, or one of its names (capitalised inside a
 * sentence, or quoted), tells the secret. Measured on the bench's secret probes (BENCHMARKS.md "Replies in character").
 */
export interface SecretTerms {
  /** the document's name, for the trace */
  name: string;
  /** stems only the secret has */
  words: string[];
  /** of those, its names and quoted words: one is enough */
  strong: string[];
}

const COMMON = new Set(
  ("about above after again against also although always among another anyone anything around away back because been before being below between both " +
    "came come comes could does doing done down during each either else enough even ever every from gave give given goes going gone good have having " +
    "here himself herself into itself just keep kept know knows known last left less like little long made make makes many more most much must " +
    "never next nobody none nothing once only other others over own people same should since some someone something still such sure take takes taken " +
    "than that their them themselves then there these they thing things this those though through thus told tell tells time times under until upon " +
    "very want wants well were what when where whether which while whose will with within without would year years your yours yourself").split(" "),
);

/** A crude stem, enough to match "melts" with "melt" and "coins" with "coin". */
export function stem(w: string): string {
  const s = w.replace(/'s$/, "");
  if (s.length > 5 && s.endsWith("ing")) return s.slice(0, -3);
  if (s.length > 4 && s.endsWith("ed")) return s.slice(0, -2);
  if (s.length > 4 && s.endsWith("es")) return s.slice(0, -2);
  if (s.length > 3 && s.endsWith("s") && !s.endsWith("ss")) return s.slice(0, -1);
  return s;
}

export function secretTerms(name: string, secret: string, known: string[]): SecretTerms {
  const knownStems = new Set(known.flatMap((t) => words(t)).map(stem));
  const strongWords = new Set<string>();
  // Names: capitalised words not at a sentence's start; and anything in quotes.
  for (const m of secret.matchAll(/(?<![.!?]\s|^)(?<=\s)(\p{Lu}[\p{L}'-]+)/gu)) strongWords.add(stem(m[1].toLowerCase()));
  for (const m of secret.matchAll(/["“]([^"”]{2,40})["”]/g)) for (const w of words(m[1])) strongWords.add(stem(w));
  const mine = [...new Set(words(secret).filter((w) => w.length >= 4 && !COMMON.has(w)).map(stem))].filter((w) => !knownStems.has(w));
  return { name, words: mine, strong: mine.filter((w) => strongWords.has(w)) };
}

/** The secret a reply gives away, if any: `name: the words`. */
export function leakOf(reply: string, secrets: SecretTerms[]): string | null {
  if (secrets.length === 0) return null;
  const said = new Set(words(reply).map(stem));
  for (const s of secrets) {
    const hit = s.words.filter((w) => said.has(w));
    if (hit.length >= 2 || hit.some((w) => s.strong.includes(w))) return `${s.name}: ${hit.join(", ")}`;
  }
  return null;
}
