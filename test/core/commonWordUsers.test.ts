import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { HashingEmbedder } from "../../src/vectors/HashingEmbedder.ts";
import { queryWords } from "../../src/retrieval/hybridSearch.ts";
import { keywords } from "../../src/npc/memory/memoryText.ts";
import { distinctive } from "../../src/npc/replies/steer.ts";
import { secretTerms } from "../../src/npc/secrets/secretTerms.ts";
import {
  EMBEDDER_FUNCTION_WORDS,
  MEMORY_STOPWORDS,
  PAIR_FUNCTION_WORDS,
  QUERY_STOPWORDS,
  SECRET_COMMON_WORDS,
  STEER_COMMON_WORDS,
} from "../../src/core/text/commonWords.ts";

/**
 * What each user of a common-word list makes of texts holding every listed word (and words next to them that no
 * list holds), pinned as hashes taken before the lists moved to src/core/text/commonWords.ts: a word added to or
 * dropped from any list changes one of these. The embedder's pin matters most: its vectors are stored, and a
 * change would leave every project's vectors stale (its `id` would have to change and every chunk re-embed).
 * Re-pinned once since, when a secret's terms took Porter's stems (src/core/text/wordStem.ts): the same words
 * and pairs chosen, only their stems written otherwise ("i'v", "ye").
 */
const sha = (x: string | Uint8Array) => createHash("sha256").update(x).digest("hex").slice(0, 16);

// Every word of every list (and some that are in none: "mill", "tunnel", "smugglers", "garrick", "coin"),
// in sentences, so bigrams and the secret detector's pairs form across function words too.
const PROBE = [
  "A an and any are as at be but by can could did do does for from had has have he her hers him his how i if in into is it its.",
  "Me my mine no nor not of off on or our out she so than that the their them then there these they this those to too up us.",
  "Was we were what when where which who whom why will with would you your yours yourself yes very just shall should may might must.",
  "Am been being about over under again here also some all each other such only own same player players one well oh ah.",
  "I'm i've i'll i'd you're you've you'll it's that's there's what's can't don't won't isn't aren't wasn't didn't doesn't let's.",
  "Above after against although always among another anyone anything around away back because before below between both came come comes.",
  "Doing done down during either else enough even ever every gave give given goes going gone good having himself herself itself keep kept.",
  "Know knows known last left less like little long made make makes many more most much never next nobody none nothing once others.",
  "People since someone something still sure take takes taken themselves thing things though through thus told tell tells time times until upon.",
  "Want wants whether while whose within without year years.",
  "Garrick hid the coin under the old mill; the smugglers use a tunnel at the mill of Varn with three hundred sacks of grain.",
].join(" ");
const TEXTS = [PROBE, "the of and", "The dragon sleeps under the mountain.", "him not up us", "player players whom yours"];

describe("the common-word lists' users, pinned", () => {
  test("the hashing embedder's vectors are the ones it gave before", async () => {
    const vs = await new HashingEmbedder().embed(TEXTS);
    expect(vs.map((v) => sha(new Uint8Array(v.buffer)))).toEqual(["8757bb08dd5c411f", "4532dedf00bdb90a", "9b352d034102e28f", "2efe48aa459a2ef8", "1bb29d8d6e05cfff"]);
  });

  test("retrieval's query words, memory keywords, steering's distinctive words, a secret's terms", () => {
    const out = TEXTS.map((t) => ({
      query: queryWords(t),
      memory: [...keywords(t)],
      steer: distinctive(t),
      secret: secretTerms("s", t, ["Garrick keeps the inn"]),
    }));
    expect(out.map((o) => sha(JSON.stringify(o)))).toEqual(["5b3a9ea2363bfd2f", "d0d3921ff768c82b", "7caf3757112db39d", "5e0ab6971a34cbe3", "8fed884f904a7d07"]);
  });
});

describe("src/core/text/commonWords.ts", () => {
  test("every function-word list holds the embedder's core", () => {
    const lists = { QUERY_STOPWORDS, MEMORY_STOPWORDS, STEER_COMMON_WORDS, PAIR_FUNCTION_WORDS };
    for (const [name, list] of Object.entries(lists)) {
      expect({ name, missing: [...EMBEDDER_FUNCTION_WORDS].filter((w) => !list.has(w)) }).toEqual({ name, missing: [] });
    }
    const sizes = [EMBEDDER_FUNCTION_WORDS, ...Object.values(lists), SECRET_COMMON_WORDS].map((s) => s.size);
    expect(sizes).toEqual([37, 67, 96, 119, 60, 143]);
  });
});
