import type { MemoryContext } from "../../core/context.ts";

/** A fact an NPC remembers about one player (DESIGN.md "Sessions and memory"). */
export interface Memory {
  id: string;
  text: string;
  /** 1 (trivia) … 10 (life-changing) */
  importance: number;
  topics: string[];
  createdAt: string;
  /** bumped when a near-duplicate merges into it */
  updatedAt: string;
  entityMindId: string;
  playerId: string;
}

/** A memory before it is stored: what summariseSession produces and storeMemories takes. */
export interface MemoryDraft {
  text: string;
  importance: number;
  topics: string[];
}

/** What the memory services need: SQLite is the source of truth, LanceDB holds the vectors. */
export type { MemoryContext };

/** The memories of one player with one mind. */
export interface MemoryScope {
  projectId: string;
  mindId: string;
  playerId: string;
}

/** At most this many memories come out of one session summary. */
export const MAX_MEMORIES_PER_SUMMARY = 8;
/** Longest memory text kept (characters). */
export const MAX_MEMORY_TEXT = 500;
/** Topics kept per draft; a merged memory keeps at most MAX_STORED_TOPICS (the union, oldest first). */
export const MAX_DRAFT_TOPICS = 8;
export const MAX_STORED_TOPICS = 16;
export const MAX_TOPIC_LENGTH = 40;
