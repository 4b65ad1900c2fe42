import type { Db } from "../../db/openDatabase.ts";

/** SQL of the kept token counts (table token_counts, migration 040). */

/** Rows kept at most: past this the oldest go (a text counted again is one /tokenize call). ~60 B a row on disk. */
const MAX_ROWS = 2_000_000;
/** Rows written between two looks at the table's size. */
const PRUNE_EVERY = 10_000;

/** Exact token counts by tokenizer (a model's identity, RemotePool.identity) and text, across restarts. */
export interface TokenCountStore {
  get(tokenizer: string, text: string): number | undefined;
  put(tokenizer: string, counts: [text: string, tokens: number][]): void;
}

/** A text's key: its xxHash64 (signed, as SQLite's INTEGER holds it) and its length in UTF-16 units. */
function keyOf(text: string): [bigint, number] {
  return [BigInt.asIntN(64, Bun.hash.xxHash64(text)), text.length];
}

export function sqliteTokenCounts(db: Db, maxRows = MAX_ROWS): TokenCountStore {
  const read = db.query<{ tokens: number }, [string, bigint, number]>("SELECT tokens FROM token_counts WHERE tokenizer = ? AND text_hash = ? AND chars = ?");
  const write = db.query<unknown, [string, bigint, number, number]>(
    "INSERT INTO token_counts (tokenizer, text_hash, chars, tokens) VALUES (?, ?, ?, ?) ON CONFLICT(tokenizer, text_hash, chars) DO UPDATE SET tokens = excluded.tokens",
  );
  const prune = db.query<unknown, [number]>("DELETE FROM token_counts WHERE id <= (SELECT MAX(id) FROM token_counts) - ?");
  let written = 0;
  const putAll = db.transaction((tokenizer: string, counts: [string, number][]) => {
    for (const [text, tokens] of counts) write.run(tokenizer, ...keyOf(text), tokens);
  });
  return {
    get(tokenizer, text) {
      return read.get(tokenizer, ...keyOf(text))?.tokens;
    },
    put(tokenizer, counts) {
      if (counts.length === 0) return;
      putAll(tokenizer, counts);
      written += counts.length;
      if (written >= PRUNE_EVERY) {
        written = 0;
        prune.run(maxRows);
      }
    },
  };
}
