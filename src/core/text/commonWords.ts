/**
 * English words too common to tell one text from another, in one place. Every list shares one core (articles,
 * personal pronouns, be/have, the commonest prepositions and conjunctions) and adds what its own use needs. They
 * stay separate lists, not one merged list, because each is load-bearing with its exact words: the embedder's is
 * part of every stored vector, and the others were tuned on benches (retrieval, memory recall, the reply guard's
 * steering, the secret detector). A word moved into or out of a list changes what that user does:
 * test/core/commonWordUsers.test.ts pins each user's output. A general-purpose stopword list (the `stopword`
 * package's English one, ~170 words) was not used for the same reason: adopting it would re-embed every project
 * and move every tuned figure.
 */

type WordSet = ReadonlySet<string>;

const wordSet = (...parts: string[]): WordSet => new Set(parts.join(" ").split(" ").filter(Boolean));

const CORE =
  "a an and are as at be but by for from had has have he her his i in is it its of on or she that the their they this to was we were " +
  "with you";

/**
 * The built-in hashing embedder's function words: damped (a fifth of a word's weight, no character trigrams), so
 * a short query does not match on "the" or "of". Part of every stored vector: changing it needs a new embedder id.
 */
export const EMBEDDER_FUNCTION_WORDS: WordSet = wordSet(CORE);

/** Words left out of a player's line before it becomes a BM25 query (a player's line is mostly these). */
export const QUERY_STOPWORDS: WordSet = wordSet(
  CORE,
  "can could did do does him how if into me my no not our so than them then there up us what when where which who why will would your",
);

/** Words that are not a memory's keywords; "player" too: every memory is about the player. */
export const MEMORY_STOPWORDS: WordSet = wordSet(
  CORE,
  "hers him me my our them your yours what who whom which when where why how do does did not no so if then than too very can could " +
    "will would shall should may might must am been being about into over under again there here just also some any all each other such " +
    "only own same player players",
);

/**
 * Words a steered resample never biases against: a reply needs "the", "you", "is" whatever it says, so biasing
 * them would bend every sentence, not the failure. Contractions included (the reply guard's words keep them).
 */
export const STEER_COMMON_WORDS: WordSet = wordSet(
  CORE,
  "if been being am do does did me my mine your yours him hers us our them these those there here what who whom which when where why " +
    "how not no yes so too very just can could will would shall should may might must all any some one about into out up down over then " +
    "than also again well oh ah i'm i've i'll i'd you're you've you'll it's that's there's what's can't don't won't isn't aren't wasn't " +
    "didn't doesn't let's",
);

/**
 * Short words that carry nothing alone, left out of the secret detector's word pairs ("sacks of grain" pairs
 * "sack grain"); always used with SECRET_COMMON_WORDS.
 */
export const PAIR_FUNCTION_WORDS: WordSet = wordSet(
  CORE,
  "any can did do him how if me my no nor not off our out so too up us who why all one",
);

/** Longer common words ("about", "because", "people") that give no secret away when a reply says them. */
export const SECRET_COMMON_WORDS: WordSet = wordSet(
  "about above after again against also although always among another anyone anything around away back because been before being below " +
    "between both came come comes could does doing done down during each either else enough even ever every from gave give given goes " +
    "going gone good have having here himself herself into itself just keep kept know knows known last left less like little long made " +
    "make makes many more most much must never next nobody none nothing once only other others over own people same should since some " +
    "someone something still such sure take takes taken than that their them themselves then there these they thing things this those " +
    "though through thus told tell tells time times under until upon very want wants well were what when where whether which while whose " +
    "will with within without would year years your yours yourself",
);
