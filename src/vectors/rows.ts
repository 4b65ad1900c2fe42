/** The rows the vector store holds and returns (shared by the store and the in-memory cache). */

export interface ChunkRow {
  id: string;
  projectId: string;
  documentId: string;
  documentName: string;
  chunkIndex: number;
  text: string;
  tags: string[];
  locationId: string | null;
}

export interface LoreHit extends ChunkRow {
  /** Reciprocal-rank-fusion score (higher is better; at most 2/61). */
  score: number;
  /** 1-based rank in the vector results, null if absent from them. */
  vectorRank: number | null;
  /** 1-based rank in the full-text (BM25) results, null if absent from them. */
  textRank: number | null;
}

export interface MemoryRow {
  id: string;
  projectId: string;
  entityMindId: string;
  playerId: string;
  text: string;
  importance: number;
  topics: string[];
  createdAt: string;
}
