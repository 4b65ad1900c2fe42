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
