import { Inflate } from "fflate";
import { ArchiveError } from "./ArchiveError.ts";
import { EntryRejected } from "./EntryRejected.ts";
import type { CentralEntry } from "./centralDirectory.ts";
import type { PositionedReader } from "./PositionedReader.ts";

/** Compressed bytes read from disk at a time. */
const READ_CHUNK_BYTES = 64 * 1024;
/**
 * Compressed bytes handed to fflate per push. fflate inflates a whole push at
 * once and DEFLATE expands at most ~1032:1, so one push yields at most ~17 MB:
 * a bomb is stopped within 17 MB of passing its cap. Smaller pushes cost
 * throughput (4 KiB halves it on text).
 */
const PUSH_BYTES = 16 * 1024;

export const METHOD_STORED = 0;
export const METHOD_DEFLATE = 8;

/**
 * Reads and inflates one entry whose data starts at `dataOffset`. The output
 * buffer is exactly the declared size (already checked against the limits);
 * producing one byte more aborts inflation at once as a decompression bomb.
 */
export async function readEntryData(
  reader: PositionedReader,
  entry: CentralEntry,
  dataOffset: number,
  signal?: AbortSignal,
): Promise<Uint8Array> {
  const declared = entry.uncompressedSize;
  const out = new Uint8Array(declared);

  if (entry.method === METHOD_STORED) {
    if (entry.compressedSize !== declared) {
      throw new EntryRejected("corrupt entry: stored entry's compressed and uncompressed sizes differ");
    }
    for (let done = 0; done < declared; done += READ_CHUNK_BYTES) {
      signal?.throwIfAborted();
      const length = Math.min(READ_CHUNK_BYTES, declared - done);
      await reader.readInto(out, done, length, dataOffset + done);
    }
  } else {
    let written = 0;
    const inflater = new Inflate((chunk) => {
      if (written + chunk.length > declared) {
        throw new EntryRejected(`decompression bomb: inflates past its declared size of ${declared} bytes`);
      }
      out.set(chunk, written);
      written += chunk.length;
    });
    const total = entry.compressedSize;
    try {
      if (total === 0) inflater.push(new Uint8Array(0), true);
      for (let done = 0; done < total; ) {
        signal?.throwIfAborted();
        const length = Math.min(READ_CHUNK_BYTES, total - done);
        const chunk = new Uint8Array(length);
        await reader.readInto(chunk, 0, length, dataOffset + done);
        for (let at = 0; at < length; at += PUSH_BYTES) {
          const end = Math.min(at + PUSH_BYTES, length);
          inflater.push(chunk.subarray(at, end), done + end === total);
        }
        done += length;
      }
    } catch (e) {
      if (e instanceof EntryRejected || e instanceof ArchiveError || signal?.aborted) throw e;
      throw new EntryRejected(`corrupt entry: invalid deflate data (${(e as Error).message})`);
    }
    if (written !== declared) {
      throw new EntryRejected(`corrupt entry: inflated to ${written} bytes, central directory says ${declared}`);
    }
  }

  if ((Bun.hash.crc32(out) >>> 0) !== entry.crc32) throw new EntryRejected("corrupt entry: CRC-32 mismatch");
  return out;
}
