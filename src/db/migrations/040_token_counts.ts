import type { Migration } from "./migration.ts";

/**
 * Token counts a remote pool's servers reported (their /tokenize), kept across restarts: a mind's shared-lore
 * choice and its static prompt's fit count by them, so a choice made ahead (the shared-lore warm-up) and one made
 * by a turn are the same, and a restarted server does not ask again for texts it counted before.
 * `tokenizer` names the model the counts are of (its reported name and a fingerprint of its tokenizer): another
 * model never reads them. `text_hash` (xxHash64 of the text, signed) with `chars` identifies the text; the rowid
 * orders the rows by age, so the store drops its oldest once it holds too many (src/generation/remote/tokenCountStore.ts).
 */
export const tokenCounts: Migration = {
  version: 40,
  name: "token_counts",
  sql: `
CREATE TABLE token_counts (
  id INTEGER PRIMARY KEY,
  tokenizer TEXT NOT NULL,
  text_hash INTEGER NOT NULL,
  chars INTEGER NOT NULL,
  tokens INTEGER NOT NULL
);
CREATE UNIQUE INDEX token_counts_text ON token_counts(tokenizer, text_hash, chars);
`,
};
