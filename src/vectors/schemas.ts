import { Field, FixedSizeList, Float32, Float64, Int32, List, Schema, Utf8 } from "apache-arrow";

const utf8List = () => new List(new Field("item", new Utf8(), true));
// Nullable: a row written while the store has no usable embedder (see VectorStore "stale") has no vector yet;
// vector search skips such rows, full-text search still finds them.
const vector = (dims: number) => new Field("vector", new FixedSizeList(dims, new Field("item", new Float32(), true)), true);

export function chunkSchema(dims: number): Schema {
  return new Schema([
    new Field("id", new Utf8(), false),
    new Field("projectId", new Utf8(), false),
    new Field("documentId", new Utf8(), false),
    new Field("documentName", new Utf8(), false),
    new Field("chunkIndex", new Int32(), false),
    new Field("text", new Utf8(), false),
    new Field("tags", utf8List(), false),
    new Field("locationId", new Utf8(), true),
    vector(dims),
  ]);
}

export function memorySchema(dims: number): Schema {
  return new Schema([
    new Field("id", new Utf8(), false),
    new Field("projectId", new Utf8(), false),
    new Field("entityMindId", new Utf8(), false),
    new Field("playerId", new Utf8(), false),
    new Field("text", new Utf8(), false),
    new Field("importance", new Float64(), false),
    new Field("topics", utf8List(), false),
    new Field("createdAt", new Utf8(), false),
    vector(dims),
  ]);
}

export const CHUNK_COLUMNS = ["id", "projectId", "documentId", "documentName", "chunkIndex", "text", "tags", "locationId"];
export const MEMORY_COLUMNS = ["id", "projectId", "entityMindId", "playerId", "text", "importance", "topics", "createdAt"];

/** Arrow list cells come back as Vectors; callers want plain string arrays. */
export function toStringArray(v: unknown): string[] {
  if (v == null) return [];
  return Array.from(v as Iterable<unknown>, (x) => String(x));
}
