import { words } from "../replies/wordOverlap.ts";
import { PAIR_FUNCTION_WORDS as FUNCTION_WORDS, SECRET_COMMON_WORDS as COMMON } from "../../core/text/commonWords.ts";
import { nameForm, wordStem as stem } from "../../core/text/wordStem.ts";

/**
 * What would give a secret away: the words of a kept secret that nothing else in the turn says (not the persona,
 * not the other notes, not the player). A reply holding two of them, or one of its names (capitalised inside a
 * sentence, or quoted), tells the secret. So does a reply holding two words side by side that stand side by side
 * in the secret and nowhere else in the turn ("three hundred sacks", "the top shelf"): a secret is mostly told in
 * words the turn also uses elsewhere, and it is their combination that only the secret has. Measured on the
 * bench's secret probes (BENCHMARKS.md "Replies in character").
 */
export interface SecretTerms {
  /** the document's name, for the trace */
  name: string;
  /** stems only the secret has */
  words: string[];
  /** of those, its names and quoted words: one is enough */
  strong: string[];
  /** adjacent content words of the secret ("three hundr"), one of them its own, that stand together nowhere else in the turn: one is enough */
  pairs?: string[];
}

/** The words a text says, each as its stem and as its plain form (what a secret's names are kept as). */
function saidWords(ws: string[]): Set<string> {
  return new Set(ws.flatMap((w) => [stem(w), nameForm(w)]));
}

/** The content words of a text as stems, in order: what pairs are made of. */
function contentStems(text: string): string[] {
  return words(text).filter((w) => w.length >= 3 && !FUNCTION_WORDS.has(w) && !COMMON.has(w)).map(stem);
}

/** Adjacent content stems within a sentence, as "a b". */
function pairsOf(text: string): string[] {
  return text.split(/[.!?;:\n]+/).flatMap((sentence) => {
    const c = contentStems(sentence);
    return c.slice(1).map((w, i) => `${c[i]} ${w}`).filter((p, i) => c[i] !== c[i + 1]);
  });
}

export function secretTerms(name: string, secret: string, known: string[]): SecretTerms {
  const knownStems = saidWords(known.flatMap((t) => words(t)));
  const knownPairs = new Set(known.flatMap(pairsOf));
  // Names: capitalised words not at a sentence's start, kept unstemmed (a one-word tell, so the surname "Oakes" must
  // not become the word "oak"); and anything in quotes.
  const names = new Set<string>();
  for (const m of secret.matchAll(/(?<![.!?]\s|^)(?<=\s)(\p{Lu}[\p{L}'-]+)/gu)) names.add(nameForm(m[1]));
  const term = (w: string) => (names.has(nameForm(w)) ? nameForm(w) : stem(w));
  const strongWords = new Set(names);
  for (const m of secret.matchAll(/["“]([^"”]{2,40})["”]/g)) for (const w of words(m[1])) strongWords.add(term(w));
  const mine = [...new Set(words(secret).filter((w) => w.length >= 4 && !COMMON.has(w)).map(term))].filter((w) => !knownStems.has(w));
  // A pair counts when one of its words is the secret's alone: the secret's own word in the secret's own
  // company ("three hundred", "top shelf"), never two words the turn says anyway ("Warden Haska", "great flood").
  const own = new Set(contentStems(secret).filter((w) => !knownStems.has(w)));
  const pairs = [...new Set(pairsOf(secret))].filter((p) => !knownPairs.has(p) && p.split(" ").some((w) => own.has(w)));
  return { name, words: mine, strong: mine.filter((w) => strongWords.has(w)), pairs };
}

/** The secret a reply gives away, if any: `name: the words`. */
export function leakOf(reply: string, secrets: SecretTerms[]): string | null {
  if (secrets.length === 0) return null;
  const said = saidWords(words(reply));
  const saidPairs = new Set(pairsOf(reply));
  for (const s of secrets) {
    const hit = s.words.filter((w) => said.has(w));
    if (hit.length >= 2 || hit.some((w) => s.strong.includes(w))) return `${s.name}: ${hit.join(", ")}`;
    const pair = s.pairs?.find((p) => saidPairs.has(p));
    if (pair) return `${s.name}: "${pair}"`;
  }
  return null;
}
