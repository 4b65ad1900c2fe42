// Long-term memory (DESIGN.md "Sessions and memory"): summarise → store (merge) → retrieve; list, export, erase.
export type { Memory, MemoryContext, MemoryDraft } from "./types.ts";
export { summariseSession } from "./summariseSession.ts";
export { storeMemories, MERGE_SIMILARITY } from "./storeMemories.ts";
export { retrieveMemories, DEFAULT_MEMORY_LIMIT, ENHANCED_WEIGHTS, RECENCY_HALF_LIFE_DAYS } from "./retrieveMemories.ts";
export { listMemories, exportPlayerData, erasePlayer, erasePlayerRows } from "./memoryAdmin.ts";
export { purgeErasedMemories } from "./tombstones.ts";
export { sanitiseDrafts } from "./sanitiseDrafts.ts";
