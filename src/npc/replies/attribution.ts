/**
 * A fact told of the wrong person. A 0.5B model asked "Who forged the ferry chain?" with a note that says the chain was
 * "forged … by the smith Teodor Vellacott" answers "Nessa Dray forged the chain": a name from its "People you know"
 * lines, put where the note's name stood. Such a reply reads as a fact and is wrong, so the reply guard draws it again
 * (`wrongAttribution`, once a turn, like a made-up number: quantities.ts). No model call: word overlap.
 *
 * What counts: a sentence of the reply that names one of the people the mind knows (its relationships: the names a
 * small model reaches for) and tells a fact some sentence of its prompt tells (two or more of its words, stemmed,
 * other than common ones and names), where that source sentence does not name that person and no sentence of the
 * prompt that names the person shares the fact's words. "Nessa mends my tow-ropes" stands when the mind's line for
 * Nessa says so; "Nessa Dray owns the smokehouse" does not when the note on the smokehouse names Audra Pell.
 * Narrow on purpose: a name nothing in the prompt ties to a fact ("my friend Nessa") is never one, nor a person
 * whose name the fact's own sentence holds.
 */
import { QUERY_STOPWORDS } from "../../core/text/commonWords.ts";
import { wordStem as stem } from "../../core/text/wordStem.ts";
import { splitSentences } from "./sentences.ts";
import { words } from "./wordOverlap.ts";

/** Words that carry no fact of their own, besides the query stopwords: a reply and a note sharing them share nothing. */
const FILLER = new Set([
  "also", "just", "only", "very", "much", "many", "some", "any", "all", "been", "being", "am", "said", "says", "say", "tell", "told",
  "know", "knows", "yes", "well", "here", "one", "oh", "ah", "aye", "sure", "like", "good", "see", "way", "time", "its", "it's",
  "i'm", "i've", "i'd", "that's", "he's", "she's", "there's", "don't", "doesn't", "didn't", "isn't", "friend", "ask", "course",
]);

/** A sentence of the prompt as the check reads it: its word stems (no names, no common words), its words, its names. */
interface SourceSentence {
  stems: Set<string>;
  words: Set<string>;
  /** the names it holds (runs of capitalised words, stemmed), other than any of the player's line */
  names: string[][];
  /** every word of it, stemmed (names too) */
  stemmed: Set<string>;
}

/** What a turn's replies are checked against: the prompt's sentences, and the people the mind knows by name. */
export interface AttributionSources {
  sentences: SourceSentence[];
  /** each known person: the name as written, and the forms a reply may call them by (full name, first name) */
  people: { name: string; forms: string[][] }[];
  /** the words of the player's lines, stemmed: a name they hold is what was asked about, not who did it */
  asked: Set<string>;
  /** the mind's own name's words: speaking of itself by name is another check's (detectors.ts wrongPerson) */
  self: Set<string>;
  /** the player's line asks who: any name the reply gives is its answer, not only the people the mind knows */
  asksWho: boolean;
}

function contentStems(ws: string[], skip: Set<string>): Set<string> {
  const out = new Set<string>();
  for (const w of ws) if (w.length > 2 && !QUERY_STOPWORDS.has(w) && !FILLER.has(w) && !skip.has(w) && !/^\d+$/.test(w)) out.add(stem(w));
  return out;
}

/** The ways a reply names someone: the full name and, for a name of two words or more, its first word (its title dropped). */
function personForms(name: string): string[][] {
  const all = words(name);
  const bare = all.filter((w, i) => !(i < all.length - 1 && TITLES.has(w)));
  const forms = [all, bare];
  if (bare.length > 1 && bare[0].length > 2) forms.push([bare[0]]);
  return [...new Map(forms.filter((f) => f.length).map((f) => [f.join(" "), f])).values()];
}

const TITLES = new Set(["sister", "brother", "captain", "warden", "old", "master", "mistress", "lady", "lord", "sir", "father", "mother", "the", "sergeant", "dame", "smith", "young"]);

/**
 * Words after a name that make it the teller of what follows, not its doer ("Nessa says the ferry takes nine minutes"):
 * the fact is then the prompt's, whoever the mind says told it.
 */
const TELLS = new Set(["says", "said", "tells", "told", "thinks", "thought", "reckons", "swears", "claims", "knows", "would", "might", "will", "can", "could"]);

/** Where in `ws` the reply names someone by one of `forms` as more than the teller of the sentence's fact. */
function names(ws: string[], forms: string[][]): boolean {
  const longestFirst = [...forms].sort((a, b) => b.length - a.length);
  for (let i = 0; i < ws.length; i++) {
    const f = longestFirst.find((form) => form.every((x, k) => ws[i + k] === x));
    if (!f) continue;
    if (!TELLS.has(ws[i + f.length] ?? "")) return true;
    i += f.length - 1;
  }
  return false;
}

/**
 * The turn's sources: every sentence of its prompt texts (the system text, the notes, the conversation) other than
 * the player's own lines (this turn's first), which restate the question and so would "tell" any answer. `people`:
 * the names the mind knows (its relationships' other names); `self`, its own.
 */
export function attributionSources(texts: string[], people: string[], playerLines: string[] = [], self = ""): AttributionSources {
  const known = people.filter((p) => words(p).length > 0).map((name) => ({ name, forms: personForms(name) }));
  const nameWords = new Set(known.flatMap((p) => p.forms.flat()));
  const lines = new Set(playerLines.map((l) => words(l).join(" ")).filter(Boolean));
  const asked = new Set(playerLines.flatMap(words).map(stem));
  const sentences: SourceSentence[] = [];
  for (const text of texts)
    for (const line of proseLines(text))
      for (const s of splitSentences(line)) {
        const ws = words(s);
        if (ws.length === 0 || lines.has(ws.join(" "))) continue;
        const names = capitalised(s).filter((n) => !n.some((w) => asked.has(w)));
        sentences.push({ stems: contentStems(ws, nameWords), words: new Set(ws), names, stemmed: new Set(ws.map(stem)) });
      }
  return { sentences, people: known, asked, self: new Set(words(self).map(stem)), asksWho: /\b(who|whom|whose)\b/i.test(playerLines[0] ?? "") };
}

/**
 * A text's lines as sentences run: a note's text is often wrapped mid-sentence ("… by the smith\nTeodor Vellacott of
 * Castermere."), so a line that does not end a sentence, a heading or an item goes on into the next, unless that one
 * opens an item or a heading ("- Nessa Dray: …", "[Lore]").
 */
function proseLines(text: string): string[] {
  const out: string[] = [];
  let open = false;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "") {
      open = false;
      continue;
    }
    if (open && !/^[-*[]/.test(line)) out[out.length - 1] += ` ${line}`;
    else out.push(line);
    open = !/[.!?:)\]"'”’]$/.test(line);
  }
  return out;
}

/** Days and months, stemmed: capitalised, but never the one who did a thing. */
const CALENDAR = new Set(
  "monday tuesday wednesday thursday friday saturday sunday january february march april may june july august september october november december".split(" ").map((w) => stem(w)),
);

/** Words that open a sentence or a heading without being part of a name ("The Dunlin", "About The Ferry Chain"). */
const OPENERS = new Set(["about", "aye", "no", "nay", "well", "oh", "ah", "yes"]);

/**
 * The names a sentence holds: runs of capitalised words (lower case), without the common words that open them; a
 * sentence's first word alone is no name (any word is capitalised there).
 */
function capitalised(sentence: string): string[][] {
  return capitalisedRuns(sentence).map((r) => r.stems);
}

function capitalisedRuns(sentence: string): { stems: string[]; text: string }[] {
  const out: { stems: string[]; text: string }[] = [];
  let run: { w: string; raw: string; first: boolean; text: string }[] = [];
  let first = true;
  const flush = () => {
    while (run.length && (QUERY_STOPWORDS.has(run[0].raw) || FILLER.has(run[0].raw) || OPENERS.has(run[0].raw) || CALENDAR.has(run[0].w))) run.shift();
    if (run.length > 1 || (run.length === 1 && !run[0].first && run[0].raw !== "i")) out.push({ stems: run.map((r) => r.w), text: run.map((r) => r.text).join(" ") });
    run = [];
  };
  let last = 0;
  for (const m of sentence.matchAll(/[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu)) {
    // a run is broken by anything but spaces between two words ("Castermere, Nessa" is two names)
    if (run.length && /[^\s]/.test(sentence.slice(last, m.index))) flush();
    last = m.index! + m[0].length;
    const raw = m[0].toLowerCase().replace(/[’]/g, "'");
    if (/^\p{Lu}/u.test(m[0])) run.push({ w: stem(raw), raw, first, text: m[0] });
    else flush();
    first = false;
  }
  flush();
  return out;
}

function holds(ws: string[], name: string[]): boolean {
  return ws.some((_, i) => name.every((x, k) => ws[i + k] === x));
}

/** The least a reply's sentence and its source share (stems) for the source to tell its fact: one word is a topic, not a fact. */
const MIN_SHARED = 2;

/**
 * The detail of a reply's `wrongAttribution` problem (`"Nessa Dray owns the smokehouse": the prompt tells it without
 * Nessa Dray`), or null when every person it names beside a fact is one the prompt names with it.
 */
export function wrongAttribution(reply: string, src: AttributionSources): string | null {
  if (!src.sentences.length) return null;
  const nameWords = new Set(src.people.flatMap((p) => p.forms.flat()));
  for (const sentence of splitSentences(reply)) {
    const ws = words(sentence);
    const said = src.people.filter((p) => names(ws, p.forms));
    const fact = contentStems(ws, nameWords);
    if (fact.size < MIN_SHARED) continue;
    const shared = (s: SourceSentence) => {
      let n = 0;
      for (const x of fact) if (s.stems.has(x)) n++;
      return n;
    };
    for (const person of said) {
      const withPerson = (s: SourceSentence) => person.forms.some((f) => f.every((w) => s.words.has(w)));
      // The person is the prompt's for this fact when a sentence naming them shares its words (their own line, a note on them).
      if (src.sentences.some((s) => withPerson(s) && shared(s) >= MIN_SHARED)) continue;
      const told = src.sentences.some((s) => !withPerson(s) && shared(s) >= MIN_SHARED);
      if (told) return `"${sentence.slice(0, 80)}": the prompt tells it without ${person.name}`;
    }
    const other = src.asksWho ? otherName(sentence, ws, fact, src) : null;
    if (other) return `"${sentence.slice(0, 80)}": the prompt tells it without ${other}`;
  }
  return null;
}

/**
 * A name the mind does not know as a person, given to a question that asks who, put to a fact the prompt tells of
 * another name ("Gaussby Wood owns the smokehouse" where the note on it names Audra Pell): stricter than for the
 * people it knows, since a reply names places and things too ("Welcome to Reedmouth! The crossing takes nine
 * minutes."), and only where the name is the answer. Flagged only when the sentences that tell the fact best (most words shared) each name
 * someone or something, the reply's sentence holds none of those names, and no sentence holding the reply's name
 * tells the fact.
 */
function otherName(sentence: string, ws: string[], fact: Set<string>, src: AttributionSources): string | null {
  const stemmed = ws.map(stem);
  const knownWords = new Set(src.people.flatMap((p) => p.forms.flat()).map(stem));
  for (const { stems: name, text } of capitalisedRuns(sentence)) {
    if (name.some((w) => knownWords.has(w) || src.self.has(w) || src.asked.has(w))) continue;
    const own = new Set(name);
    const facts = new Set([...fact].filter((x) => !own.has(x)));
    if (facts.size < MIN_SHARED) continue;
    const shared = (s: SourceSentence) => {
      let n = 0;
      for (const x of facts) if (s.stems.has(x)) n++;
      return n;
    };
    const holdsName = (s: SourceSentence) => name.every((w) => s.stemmed.has(w));
    if (src.sentences.some((s) => holdsName(s) && shared(s) >= MIN_SHARED)) continue;
    const best = Math.max(0, ...src.sentences.filter((s) => !holdsName(s)).map(shared));
    if (best < MIN_SHARED) continue;
    const top = src.sentences.filter((s) => !holdsName(s) && shared(s) === best);
    if (top.every((s) => s.names.length > 0 && !s.names.some((n) => holds(stemmed, n))))
      return text;
  }
  return null;
}
