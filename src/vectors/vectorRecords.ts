import { toStringArray } from "./schemas.ts";
import type { ChunkRow, MemoryRow } from "./rows.ts";

/** Rows to LanceDB records and back. */

export function chunkRecord(r: ChunkRow, vector: Float32Array | null): Record<string, unknown> {
  return {
    id: r.id,
    projectId: r.projectId,
    documentId: r.documentId,
    documentName: r.documentName,
    chunkIndex: r.chunkIndex,
    text: r.text,
    tags: [...r.tags],
    locationId: r.locationId ?? null,
    vector,
  };
}

export function memoryRecord(r: MemoryRow, vector: Float32Array | null): Record<string, unknown> {
  return {
    id: r.id,
    projectId: r.projectId,
    entityMindId: r.entityMindId,
    playerId: r.playerId,
    text: r.text,
    importance: r.importance,
    topics: [...r.topics],
    createdAt: r.createdAt,
    vector,
  };
}

// biome-ignore lint: rows from LanceDB are untyped records
export type Raw = Record<string, any>;

export function toChunkRow(r: Raw): ChunkRow {
  return {
    id: String(r.id),
    projectId: String(r.projectId),
    documentId: String(r.documentId),
    documentName: String(r.documentName),
    chunkIndex: Number(r.chunkIndex),
    text: String(r.text),
    tags: toStringArray(r.tags),
    locationId: r.locationId == null ? null : String(r.locationId),
  };
}

export function toMemoryRow(r: Raw): MemoryRow {
  return {
    id: String(r.id),
    projectId: String(r.projectId),
    entityMindId: String(r.entityMindId),
    playerId: String(r.playerId),
    text: String(r.text),
    importance: Number(r.importance),
    topics: toStringArray(r.topics),
    createdAt: String(r.createdAt),
  };
}
