/**
 * Numbers a reply states that nothing the mind was given holds. A 0.5B model asked "How far is it to Brenn?" with a
 * note that says "a day and a half on the ridge road" answers "35 miles"; asked how many sit on a council of seven,
 * "Eight". Such a number is made up, and a reply that states one is worth a second sample (the reply guard's
 * `unsupportedQuantity`). The check is narrow on purpose: what it counts as a quantity in a reply, and how much it
 * accepts from the prompt, are chosen so that the numbers a mind says in passing ("one of the old ones", "a thing
 * or two") never count, and a number the prompt gives in any of its forms ("twelve", "12", "a dozen") is never
 * new.
 */

const ONES: Record<string, number> = {
  zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12,
  thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19,
};
const TENS: Record<string, number> = { twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90 };
const SCALES: Record<string, number> = { hundred: 100, thousand: 1000, million: 1_000_000 };

/**
 * Words that name a number only a prompt is read for: a reply's "first" or "second" is rarely a count ("at first", "a
 * second"), but a note's "the third bell" makes a reply's "3" one the mind was given.
 */
const GIVEN_ONLY: Record<string, number> = {
  first: 1, second: 2, third: 3, fourth: 4, fifth: 5, sixth: 6, seventh: 7, eighth: 8, ninth: 9, tenth: 10, eleventh: 11,
  twelfth: 12, thirteenth: 13, fourteenth: 14, fifteenth: 15, sixteenth: 16, seventeenth: 17, eighteenth: 18, nineteenth: 19,
  twentieth: 20, thirtieth: 30, fortieth: 40, fiftieth: 50, hundredth: 100, thousandth: 1000,
  once: 1, twice: 2, thrice: 3, single: 1, pair: 2, couple: 2, both: 2, half: 0.5, fortnight: 14, score: 20, dozen: 12,
};

/** One number a text states: its value and the words it was written with. */
export interface StatedNumber {
  value: number;
  text: string;
  /** where the number's words end in the text read (what follows is its unit, if it has one) */
  end: number;
}

const TOKEN = /\d[\d,]*(?:\.\d+)?|[\p{L}]+(?:-[\p{L}]+)*/gu;

/** A word that is part of a number ("four", "hundred", "thirty-five", "dozen"). */
export function isNumberWord(w: string): boolean {
  return wordValue(w) !== null || w in SCALES || w === "dozen" || w in GIVEN_ONLY;
}

function wordValue(w: string): number | null {
  if (w in ONES) return ONES[w];
  if (w in TENS) return TENS[w];
  // "thirty-five", "twenty-one"
  const m = /^(\p{L}+)-(\p{L}+)$/u.exec(w);
  if (m && m[1] in TENS && m[2] in ONES && ONES[m[2]] > 0 && ONES[m[2]] < 10) return TENS[m[1]] + ONES[m[2]];
  return null;
}

/**
 * Every number a text states, in order: digits ("35", "1,200", "3.5", "12th" as 12) and number words, a run of them
 * read as one ("three hundred and twenty" is 320, "a dozen" 12, "a hundred" 100, "hundred and four" 104). `given`: read as a prompt is,
 * with ordinals and the words that only imply a number ("twice", "a fortnight") counted too.
 */
export function statedNumbers(text: string, given = false): StatedNumber[] {
  const tokens = [...text.matchAll(TOKEN)].map((m) => ({ raw: m[0], lower: m[0].toLowerCase(), at: m.index! }));
  const out: StatedNumber[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (/^\d/.test(t.raw)) {
      const value = Number(t.raw.replace(/,(?=\d{3}\b)/g, "").replace(/[,.]+$/, ""));
      const digits = t.raw.replace(/[,.]+$/, "");
      if (Number.isFinite(value)) out.push({ value, text: digits, end: t.at + digits.length });
      continue;
    }
    if (given && t.lower in GIVEN_ONLY) {
      out.push({ value: GIVEN_ONLY[t.lower], text: t.raw, end: t.at + t.raw.length });
      continue;
    }
    // A run of number words: "three hundred and twenty", "a dozen", "two thousand".
    const article = (t.lower === "a" || t.lower === "an") && i + 1 < tokens.length && (tokens[i + 1].lower in SCALES || tokens[i + 1].lower === "dozen");
    // A run may open on its scale alone: "the tower's hundred and four steps" is 104.
    if (!article && wordValue(t.lower) === null && !(t.lower in SCALES) && t.lower !== "dozen") continue;
    let total = 0;
    let current = article ? 1 : 0;
    let j = article ? i + 1 : i;
    let words = 0;
    for (; j < tokens.length; j++) {
      // A run ends at punctuation: "a dozen, two dozen" is two numbers.
      if (j > i && /\S/.test(text.slice(tokens[j - 1].at + tokens[j - 1].raw.length, tokens[j].at))) break;
      const w = tokens[j].lower;
      const v = wordValue(w);
      if (v !== null) current += v;
      else if (w === "dozen") current = (current || 1) * 12;
      else if (w === "hundred") current = (current || 1) * 100;
      else if (w in SCALES) {
        total += (current || 1) * SCALES[w];
        current = 0;
      } else if (w === "and" && words > 0 && j + 1 < tokens.length && wordValue(tokens[j + 1].lower) !== null && /hundred|thousand|million/.test(tokens[j - 1].lower)) continue;
      else break;
      words++;
    }
    const end = tokens[j - 1];
    out.push({ value: total + current, text: text.slice(t.at, end.at + end.raw.length), end: end.at + end.raw.length });
    i = j - 1;
  }
  return out;
}

/** Every number value the mind was given this turn (its prompt, read with `statedNumbers(…, true)`). */
export function givenNumbers(texts: string[]): number[] {
  const values = new Set<number>();
  for (const t of texts) for (const n of statedNumbers(t, true)) values.add(n.value);
  return [...values];
}

/**
 * The numbers of a reply that nothing it was given holds. Not counted: a lone "one" or "zero" (one of them, the
 * one who, no one), and "two" after "or" (a word or two, one or two): those are ways of speaking, not counts.
 */
export function unsupportedNumbers(reply: string, given: number[]): StatedNumber[] {
  const known = new Set(given);
  const out: StatedNumber[] = [];
  for (const n of statedNumbers(reply)) {
    if (known.has(n.value)) continue;
    const lower = n.text.toLowerCase();
    if (lower === "one" || lower === "zero") continue;
    if (lower === "two" && /\bor\s+two\b/i.test(reply)) continue;
    out.push(n);
  }
  return out;
}

/** The detail of a reply's `unsupportedQuantity` problem, or null when every number it states was given. */
export function unsupportedQuantity(reply: string, given: number[]): string | null {
  const bad = unsupportedNumbers(reply, given);
  return bad.length ? bad.map((n) => `"${n.text}"`).join(", ") : null;
}
