/**
 * A number the prompt gives, said of a thing the prompt gives another number for. Asked "How many steps does the
 * tower have?" beside a note's "Visitors may climb the tower's hundred and four steps", Qwen2.5-Coder-0.5B answered
 * "The tower has 10 steps." (3 of 4 seeds on the tuning world Reedmouth): the 10 is the note's "ten years later" of
 * another sentence, so the made-up-number check (quantities.ts) passes it. The reply guard draws such a sample again
 * once a turn, as it does a made-up number.
 *
 * Narrow on purpose: a reply sentence is checked only against the prompt sentences it shares two content words or
 * more with (its topic); the number is misplaced only when some of those sentences give a number and none gives this
 * one, and the player's lines do not hold it either. A sentence of its own words (no prompt sentence shares two of
 * its words) is never judged here.
 *
 * A number those sentences give is misplaced too when it is said with a unit they give it with nowhere, while they
 * give that unit with another number: "The ferry takes 26 minutes to cross." beside a note's "A crossing takes nine
 * minutes" and the backstory's "for twenty-six years" (Reedmouth, 4 of 4 seeds). Only a unit read in both places
 * counts (the word right after the number: "minutes", "years"); a number the topic's sentences give once without one
 * ("nine minutes when it is slack and twenty when it runs") is never misplaced by its unit.
 */
import { QUERY_STOPWORDS } from "../../core/text/commonWords.ts";
import { wordStem } from "../../core/text/wordStem.ts";
import { contentStems } from "./recitedLine.ts";
import { isNumberWord, statedNumbers, type StatedNumber } from "./quantities.ts";
import { splitSentences } from "./sentences.ts";

/** A sentence of the prompt as the check reads it: its content-word stems (number words aside) and the numbers it gives. */
export interface NumberSource {
  stems: Set<string>;
  numbers: Set<number>;
  /** each number's units as the sentence gives them ("" when no content word follows it) */
  units: Map<number, Set<string>>;
}

/** Content words a reply sentence must share with a prompt sentence for the two to be about one thing. */
const SAME_TOPIC = 2;

function topicStems(text: string): Set<string> {
  return new Set([...contentStems(text)].filter((w) => !/^\d/.test(w) && !isNumberWord(w)));
}

/**
 * The unit a number is said with: the word right after it, stemmed ("nine minutes" → minut, "twenty-six years" →
 * year), or "" when a function word, a number word or punctuation follows it. Not the content-word filter of the
 * topic: "years" and "days" are too common to tell sentences apart, and exactly what tells one number from another.
 */
export function unitAfter(text: string, n: StatedNumber): string {
  const w = wordAfter(text, n)?.toLowerCase();
  if (!w || w.length < 3 || QUERY_STOPWORDS.has(w) || isNumberWord(w)) return "";
  return wordStem(w);
}

/** The word right after a number, as written (only spaces between), if any. */
function wordAfter(text: string, n: StatedNumber): string | undefined {
  return /^ +([\p{L}]+)/u.exec(text.slice(n.end))?.[1];
}

/** The prompt texts' sentences that give a number, read once a turn. */
export function numberSources(texts: string[]): NumberSource[] {
  const out: NumberSource[] = [];
  for (const t of texts)
    for (const s of splitSentences(t)) {
      const stated = statedNumbers(s, true);
      const units = new Map<number, Set<string>>();
      for (const n of stated) units.set(n.value, (units.get(n.value) ?? new Set()).add(unitAfter(s, n)));
      out.push({ stems: topicStems(s), numbers: new Set(stated.map((n) => n.value)), units });
    }
  return out;
}

/**
 * The detail of a reply's misplaced number (`"10" where the prompt gives 104`), or null. `said`: the numbers the
 * player's lines hold (a number the player said may be said back). `asked`: the player's line. A bare answer ("Six
 * years ago.", "4") names no topic of its own: a sentence with fewer than two topic words is read with the line's
 * words, the question it answers ("How long ago was the Great Flood?" beside the flood's "sixty-one years ago").
 */
export function misplacedNumber(reply: string, sources: NumberSource[], said: number[], asked = ""): string | null {
  const theirs = new Set(said);
  const askedStems = topicStems(asked);
  for (const sentence of splitSentences(reply)) {
    const stated = statedNumbers(sentence).filter((n) => !/^(one|zero)$/i.test(n.text) && !theirs.has(n.value));
    if (!stated.length) continue;
    const own = topicStems(sentence);
    const stems = own.size < SAME_TOPIC ? new Set([...own, ...askedStems]) : own;
    const topic = sources.filter((s) => {
      let n = 0;
      for (const w of s.stems) if (stems.has(w)) n++;
      return n >= SAME_TOPIC;
    });
    const given = new Set(topic.flatMap((s) => [...s.numbers]));
    if (given.size === 0) continue;
    const wrong = stated.find((n) => !given.has(n.value));
    if (wrong) return `"${wrong.text}" where the prompt gives ${[...given].slice(0, 3).join(", ")}`;
    for (const n of stated) {
      const unit = unitAfter(sentence, n);
      if (!unit) continue;
      const its = topic.flatMap((s) => [...(s.units.get(n.value) ?? [])]);
      if (its.includes(unit) || its.includes("")) continue;
      const others = new Set(topic.flatMap((s) => [...s.units].filter(([v, u]) => v !== n.value && u.has(unit)).map(([v]) => v)));
      // only the number quoted: a resample is steered from the quoted words (steer.ts), and the unit is what it should keep
      if (others.size) return `"${n.text}" ${wordAfter(sentence, n)} where the prompt gives ${[...others].slice(0, 3).join(", ")} of that`;
    }
  }
  return null;
}
