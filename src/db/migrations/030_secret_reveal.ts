import type { Migration } from "./migration.ts";

/**
 * A secret document's `reveal` condition (src/conditions, e.g. `trust >= 60 || world.flood_stage >= 3`): while it
 * holds for a turn, the secret is told like any other note. Stored as authored and compiled at the turn, like a
 * document's `when`; null (the default) keeps the secret always.
 */
export const secretReveal: Migration = {
  version: 30,
  name: "secret_reveal",
  sql: `ALTER TABLE documents ADD COLUMN reveal_condition TEXT;`,
};
