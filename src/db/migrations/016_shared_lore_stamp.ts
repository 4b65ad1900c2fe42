import type { Migration } from "./migration.ts";

/**
 * The lore a mind's shared-lore choice was made from (src/npc/sharedLore/): the project's lore stamp and
 * the mind's knowledge tags at the time. A choice made while documents were still being indexed, or
 * before the mind's lore changed, no longer matches and is made again at its next read — also after a
 * restart, and whichever process changed the lore. Rows from before this column hold '' and are made
 * again once.
 */
export const sharedLoreStamp: Migration = {
  version: 16,
  name: "shared_lore_stamp",
  sql: `ALTER TABLE mind_shared_lore ADD COLUMN lore_stamp TEXT NOT NULL DEFAULT '';`,
};
