import { Inflate } from "fflate";
import { inflateRawSync } from "node:zlib";
import { ArchiveError } from "./ArchiveError.ts";
import { EntryRejected } from "./EntryRejected.ts";
import type { CentralEntry } from "./centralDirectory.ts";
import type { PositionedReader } from "./PositionedReader.ts";

/** Compressed bytes read from disk at a time. */
const READ_CHUNK_BYTES = 64 * 1024;
/**
 * Compressed bytes handed to fflate per push. fflate inflates a whole push
 * before the cap can look at it, and DEFLATE expands up to ~1032:1, so the
 * push size bounds the memory a bomb can claim between two checks: a 16 KiB
 * push can yield 17 MB (plus fflate's growing buffers). Pushes start small and
 * grow only while the data expands modestly; the first push that expands a
 * lot sends them back to small. Small pushes alone would halve throughput on
 * ordinary text.
 */
const SMALL_PUSH_BYTES = 4 * 1024;
const LARGE_PUSH_BYTES = 16 * 1024;
/** Above this expansion (output ÷ input of the last push) pushes stay small. */
const LARGE_PUSH_MAX_RATIO = 16;
/**
 * fflate buffers a stored block (≤ 65,540 bytes) whole before yielding it, so
 * an honest stream goes only a handful of pushes without output. Past the
 * end of the stream fflate keeps appending (and re-copying) whatever is
 * pushed, so compressed bytes trailing the stream would cost quadratic time:
 * more than this many silent pushes in a row is refused as corrupt.
 */
const MAX_SILENT_PUSHES = 16;

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
  } else if (entry.compressedSize <= maxDeflatedSize(declared)) {
    return inflateWhole(reader, entry, dataOffset, signal);
  } else {
    // More compressed bytes than any encoder needs for the declared size: a liar or trailing junk.
    // Streamed, so inflation stops at the first push past the cap (the rest is never read).
    let written = 0;
    let silentPushes = 0;
    let pushBytes = SMALL_PUSH_BYTES;
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
        for (let at = 0; at < length; ) {
          const end = Math.min(at + pushBytes, length);
          const before = written;
          inflater.push(chunk.subarray(at, end), done + end === total);
          pushBytes = written - before > (end - at) * LARGE_PUSH_MAX_RATIO ? SMALL_PUSH_BYTES : LARGE_PUSH_BYTES;
          at = end;
          silentPushes = written === before ? silentPushes + 1 : 0;
          if (silentPushes > MAX_SILENT_PUSHES) {
            throw new EntryRejected("corrupt entry: compressed data continues past the end of the deflate stream");
          }
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

/**
 * The most compressed bytes an honest deflate stream of `size` bytes needs: fixed-Huffman literals
 * cost at most 9 bits for 8, stored blocks 5 bytes per 64 KiB, plus headers.
 */
function maxDeflatedSize(size: number): number {
  return size + Math.ceil(size / 8) + 5 * Math.ceil(size / 65535) + 1024;
}

/** Compressed bytes read from disk per call when an entry is read whole. */
const WHOLE_READ_BYTES = 1024 * 1024;

/**
 * For speed: an entry whose compressed size is plausible for its declared size is read whole
 * and inflated by the runtime's native zlib (~8× fflate). Memory stays bounded as before: the
 * compressed bytes are at most ~1.13× the declared size (already within the entry limit), and zlib
 * stops at `maxOutputLength` = the declared size, so a liar fails as a decompression bomb without
 * inflating further. zlib reports how much input the stream used: bytes past its end are refused.
 */
async function inflateWhole(reader: PositionedReader, entry: CentralEntry, dataOffset: number, signal?: AbortSignal): Promise<Uint8Array> {
  const declared = entry.uncompressedSize;
  const total = entry.compressedSize;
  const compressed = new Uint8Array(total);
  for (let done = 0; done < total; done += WHOLE_READ_BYTES) {
    signal?.throwIfAborted();
    await reader.readInto(compressed, done, Math.min(WHOLE_READ_BYTES, total - done), dataOffset + done);
  }
  signal?.throwIfAborted();
  let out: Uint8Array;
  let used: number;
  try {
    const r = inflateRawSync(compressed, { maxOutputLength: Math.max(1, declared), info: true } as never) as unknown as { buffer: Uint8Array; engine: { bytesWritten: number } };
    out = r.buffer;
    used = r.engine.bytesWritten;
  } catch (e) {
    const err = e as { code?: string; message?: string };
    if (err.code === "ERR_BUFFER_TOO_LARGE") throw new EntryRejected(`decompression bomb: inflates past its declared size of ${declared} bytes`);
    throw new EntryRejected(`corrupt entry: invalid deflate data (${err.message ?? String(e)})`);
  }
  if (out.length > declared) throw new EntryRejected(`decompression bomb: inflates past its declared size of ${declared} bytes`);
  if (used < total) throw new EntryRejected("corrupt entry: compressed data continues past the end of the deflate stream");
  if (out.length !== declared) throw new EntryRejected(`corrupt entry: inflated to ${out.length} bytes, central directory says ${declared}`);
  if ((Bun.hash.crc32(out) >>> 0) !== entry.crc32) throw new EntryRejected("corrupt entry: CRC-32 mismatch");
  return out;
}
