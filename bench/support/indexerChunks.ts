import { chunkText } from "../../src/lore/chunker.ts";
import { bigWorld } from "./bigWorld.ts";

/**
 * At least `count` chunks as the indexer makes them from documents like scale-indexing.ts writes: four parts of ~10
 * generated chunks under headings, then the chunker. `shortDocs`: a short document (a character card, a rumour)
 * beside every third, since real lore is not all one length.
 */
export function indexerChunks(count: number, opts: { sizeHint: number; shortDocs?: boolean }): string[] {
  const world = bigWorld({ chunks: opts.sizeHint, chunksPerDocument: 40, queries: 1 });
  const chunks: string[] = [];
  for (let d = 0; chunks.length < count; d++) {
    const part = (i: number) =>
      world.chunks
        .slice(d * 40 + i * 10, d * 40 + (i + 1) * 10)
        .map((c) => c.text)
        .join(" ");
    const content = Array.from({ length: 4 }, (_, i) => `## Part ${i}\n\n${part(i)}`).join("\n\n");
    chunks.push(...chunkText(content).map((c) => c.content), ...(opts.shortDocs && d % 3 === 0 ? [world.chunks[d].text.slice(0, 120)] : []));
  }
  return chunks;
}
