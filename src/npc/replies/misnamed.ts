/**
 * A name the reply gives that its prompt gives otherwise: a word of a known name beside a word the prompt never says
 * ("Rupert Crane has the longest tab" where the note says Tobias Crane), or a known name's word respelled ("the wood
 * is cut at Gallowby Wood" where the note says Fallowby Wood). Seen in Qwen2.5-Coder-0.5B's replies on the tuning
 * worlds: the answer reads as right to a reader who skims and is wrong in the one word that matters. The reply guard
 * draws such a sample again once a turn, steered from the word it made up. No model call: words only.
 *
 * Narrow on purpose: only runs of capitalised words; a word the prompt or the player's lines hold anywhere (in any
 * case) is never made up; a run of one capitalised word counts only when it respells a name's word (a sentence's
 * first word is capitalised by grammar, and an invented lone name is the attribution check's to judge).
 */

/** What the check reads of a turn: every word its prompt and the player's lines hold, and the words of their names. */
export interface NameSources {
  words: Set<string>;
  nameWords: string[];
  /** the names of two words or more, each as its words */
  nameRuns: string[][];
}

/** Words that are capitalised in names without being one ("the Net Loft", "Lord of the Isles"). */
const COMMON = new Set(["the", "and", "of", "old", "new", "saint", "st", "mr", "mrs", "lord", "lady"]);

/** Titles said before a name in its place ("Mistress Gall" for Hesper Gall): a way of naming, not another name. */
const TITLES = new Set(["mistress", "mister", "missus", "master", "goodman", "goodwife", "goody", "captain", "mother", "father", "brother", "sister", "sir", "madam", "dame", "widow", "young", "old", "uncle", "aunt", "granny", "gran", "miss"]);

/** Words a sentence opens with before a name ("Hello Pell", "Thanks Garrick"): a greeting, not a name of its own. */
const OPENERS = new Set(["hello", "hallo", "hi", "hey", "greetings", "welcome", "well", "aye", "yes", "yeah", "no", "nay", "oh", "ah", "thanks", "thank", "good", "dear", "ask", "tell", "see", "meet", "poor", "evening", "morning", "afternoon", "night", "farewell", "goodbye", "bye", "cheers", "sorry", "please", "listen", "look"]);

const WORD = /[\p{L}][\p{L}'’-]*/gu;
/** The shortest name word a respelling is judged against: "Gall" and "Hall" are two names, not one misspelt. */
const MIN_RESPELT = 5;

function plain(w: string): string {
  return w.toLowerCase().replace(/['’]s$/, "").replace(/['’]$/, "");
}

/** The runs of capitalised words of a text (each word plain), with whether the run opens a sentence. */
function capitalRuns(text: string): { words: string[]; opensSentence: boolean }[] {
  const out: { words: string[]; opensSentence: boolean }[] = [];
  let run: string[] = [];
  let opens = false;
  let lastEnd = -1;
  for (const m of text.matchAll(WORD)) {
    const at = m.index!;
    const between = lastEnd < 0 ? text.slice(0, at) : text.slice(lastEnd, at);
    const contiguous = lastEnd >= 0 && /^ $/.test(between);
    if (run.length && (!contiguous || !/^\p{Lu}/u.test(m[0]))) {
      out.push({ words: run, opensSentence: opens });
      run = [];
    }
    if (/^\p{Lu}/u.test(m[0]) && m[0] !== "I" && !/^I['’]/.test(m[0])) {
      if (!run.length) opens = lastEnd < 0 || /[.!?:;"“]\s*$/.test(between) || /\n/.test(between);
      run.push(plain(m[0]));
    }
    lastEnd = at + m[0].length;
  }
  if (run.length) out.push({ words: run, opensSentence: opens });
  return out;
}

/** Every word and every name word of the turn's texts (its prompt and the player's lines). */
export function nameSources(texts: string[]): NameSources {
  const words = new Set<string>();
  const names = new Set<string>();
  const runs = new Map<string, string[]>();
  for (const t of texts) {
    for (const m of t.matchAll(WORD)) words.add(plain(m[0]));
    for (const r of capitalRuns(t)) {
      if (r.words.length > 1 || !r.opensSentence) for (const w of r.words) names.add(w);
      if (r.words.length > 1) runs.set(r.words.join(" "), r.words);
    }
  }
  return { words, nameWords: [...names].filter((w) => w.length >= MIN_RESPELT), nameRuns: [...runs.values()] };
}

/** Edits (insert, delete, substitute) between two short words, or more than `max` when more. */
function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      best = Math.min(best, cur[j]);
    }
    if (best > max) return max + 1;
    prev = cur;
  }
  return prev[b.length];
}

/**
 * The made-up word of a name the reply gives and the name it stands in (`"Gallowby" for "Fallowby"`), or null.
 */
export function misnamed(reply: string, src: NameSources): { word: string; detail: string } | null {
  for (const run of capitalRuns(reply)) {
    for (const [i, w] of run.words.entries()) {
      if (src.words.has(w) || w.length < 3 || TITLES.has(w) || OPENERS.has(w)) continue;
      // A sentence's first word is capitalised by grammar: alone it may be any word ("There", "Given"), and first in a
      // run it is judged only beside a name it stands in.
      const byGrammar = i === 0 && run.opensSentence;
      if (w.length >= MIN_RESPELT && !(byGrammar && run.words.length === 1)) {
        const near = src.nameWords.find((n) => n !== w && editDistance(w, n, 2) <= 2);
        if (near) return { word: w, detail: `"${w}" for "${near}"` };
      }
      // A name of the prompt with this word where one of its own stood: "Rupert Crane" for "Tobias Crane" (a word of
      // the name in the same place, not a common one), never "Ask Tobias" beside "Tobias Crane".
      for (const name of src.nameRuns) {
        for (let at = 0; at + run.words.length <= name.length; at++) {
          const window = name.slice(at, at + run.words.length);
          const same = window.some((x, j) => j !== i && x === run.words[j] && x.length >= 3 && !COMMON.has(x));
          // a reply cut off mid-name ("Bryony Te") is short, not wrong
          if (same && window[i] !== w && !window[i].startsWith(w)) return { word: w, detail: `"${w}" in "${run.words.join(" ")}" for "${window.join(" ")}"` };
        }
      }
    }
  }
  return null;
}
