import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Embedder } from "../../src/vectors/Embedder.ts";
import { HashingEmbedder } from "../../src/vectors/HashingEmbedder.ts";
import type { ChunkRow, MemoryRow } from "../../src/vectors/VectorStore.ts";

/** A fresh temp dir per test file; call the returned cleanup in afterAll. */
export function tempDir(prefix = "lorehold-vectors-"): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function chunk(
  projectId: string,
  documentId: string,
  chunkIndex: number,
  text: string,
  tags: string[],
  extra: Partial<ChunkRow> = {},
): ChunkRow {
  return {
    id: `${projectId}:${documentId}:${chunkIndex}`,
    projectId,
    documentId,
    documentName: `Doc ${documentId}`,
    chunkIndex,
    text,
    tags,
    locationId: null,
    ...extra,
  };
}

export function memory(id: string, projectId: string, entityMindId: string, playerId: string, text: string, extra: Partial<MemoryRow> = {}): MemoryRow {
  return { id, projectId, entityMindId, playerId, text, importance: 5, topics: [], createdAt: "2026-01-15T12:00:00.000Z", ...extra };
}

/** Another embedder with the hashing features but a different id (and optionally slower), for re-embed tests. */
export class RenamedEmbedder implements Embedder {
  readonly dims = 384;
  private readonly inner = new HashingEmbedder();
  calls = 0;
  constructor(
    readonly id: string,
    private readonly delayMs = 0,
  ) {}
  async embed(texts: string[]): Promise<Float32Array[]> {
    this.calls++;
    if (this.delayMs) await Bun.sleep(this.delayMs);
    return this.inner.embed(texts);
  }
}

/** A tiny embedder of a different size: vectors from it cannot be mixed with 384-dim ones. */
export class SmallEmbedder implements Embedder {
  readonly id = "small-16-test";
  readonly dims = 16;
  private readonly inner = new HashingEmbedder();
  async embed(texts: string[]): Promise<Float32Array[]> {
    return (await this.inner.embed(texts)).map((v) => {
      const out = new Float32Array(16);
      for (let i = 0; i < v.length; i++) out[i % 16] += v[i];
      const n = Math.hypot(...out) || 1;
      return out.map((x) => x / n);
    });
  }
}

/**
 * Dense vectors, as a neural embedder gives (the IVF index serves only dense queries; a sparse one is scanned
 * exactly): the hashing embedder's features plus a constant on every dim, normalised. Plain JS arithmetic, the same
 * on any CPU.
 */
export class DenseEmbedder implements Embedder {
  readonly dims = 384;
  private readonly inner = new HashingEmbedder();
  constructor(
    readonly id = "test-dense-384-v1",
    private readonly shift = 0.03,
  ) {}
  async embed(texts: string[]): Promise<Float32Array[]> {
    return (await this.inner.embed(texts)).map((v) => {
      const out = v.map((x) => x + this.shift);
      const n = Math.hypot(...out);
      return out.map((x) => x / n);
    });
  }
}

const SNAPSHOT_WORDS = "ferry toll abbey crypt bell lantern smuggler tunnel cellar harbour ship storm keeper lighthouse marsh barley".split(" ");
/** Chunk i's text in the snapshot tests' worlds: three of a few words, so dense vectors form clusters. */
export const snapshotText = (i: number) =>
  `${SNAPSHOT_WORDS[i % SNAPSHOT_WORDS.length]} ${SNAPSHOT_WORDS[(i * 7) % SNAPSHOT_WORDS.length]} ${SNAPSHOT_WORDS[(i * 3 + 1) % SNAPSHOT_WORDS.length]} part ${i}`;
