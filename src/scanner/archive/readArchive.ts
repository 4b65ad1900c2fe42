import { createHash } from "node:crypto";
import { ArchiveError } from "./ArchiveError.ts";
import { type CentralEntry, walkCentralDirectory } from "./centralDirectory.ts";
import { readEndOfCentralDirectory } from "./endOfCentralDirectory.ts";
import { isSafeEntryPath, normalizeEntryName } from "./entryName.ts";
import { EntryRejected } from "./EntryRejected.ts";
import { locateEntryData } from "./localHeader.ts";
import { hasArchiveExtension, hasArchiveMagic } from "./nestedArchive.ts";
import { findOverlappingEntries } from "./overlappingEntries.ts";
import { PositionedReader } from "./PositionedReader.ts";
import { METHOD_DEFLATE, METHOD_STORED, readEntryData } from "./readEntryData.ts";
import {
  type AcceptedFile,
  type ArchiveLimits,
  DEFAULT_ARCHIVE_LIMITS,
  type ManifestEntry,
  type ReadArchiveOptions,
  type ReadArchiveResult,
  type RejectedFile,
} from "./types.ts";

export { ArchiveError } from "./ArchiveError.ts";

const FLAG_ENCRYPTED = 0x1;
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
/**
 * The ratio limit applies from this declared size up: tiny files of repeated
 * characters legitimately compress past 200:1, and below 1 MiB a high ratio
 * cannot hurt (the entry is capped at its declared size anyway).
 */
export const RATIO_CHECK_MIN_BYTES = 1024 * 1024;

/**
 * Reads a scan upload: checks every entry against the manifest and the safety
 * rules (DESIGN.md "Scanner") and hands each accepted file to `onFile`, one at
 * a time, awaiting it. Works from the central directory with positioned reads,
 * so memory holds at most one entry (≤ maxEntryBytes) plus small buffers.
 *
 * Throws ArchiveError only when the archive as a whole cannot be read; each
 * bad entry becomes a RejectedFile and the rest is still processed. Errors
 * from `onFile` and aborts (`signal`) propagate unchanged.
 */
export async function readArchive(
  zipPath: string,
  manifest: ManifestEntry[],
  onFile: (f: AcceptedFile) => Promise<void>,
  opts: ReadArchiveOptions = {},
): Promise<ReadArchiveResult> {
  const limits: ArchiveLimits = { ...DEFAULT_ARCHIVE_LIMITS, ...opts.limits };
  const signal = opts.signal;
  signal?.throwIfAborted();

  const reader = await PositionedReader.open(zipPath);
  try {
    const eocd = await readEndOfCentralDirectory(reader);
    if (eocd.totalEntries > limits.maxEntries) {
      throw new ArchiveError(`archive has ${eocd.totalEntries} entries, more than the limit of ${limits.maxEntries}`);
    }
    const entries: CentralEntry[] = [];
    await walkCentralDirectory(reader, eocd, (entry) => entries.push(entry));
    const files = entries.filter((entry) => !isDirectory(entry));
    const overlapping = findOverlappingEntries(files);

    const byPath = new Map<string, ManifestEntry>();
    for (const item of manifest) byPath.set(normalizeEntryName(item.relativePath), item);
    const found = new Set<string>();
    const seen = new Set<string>();
    const rejected: RejectedFile[] = [];
    let accepted = 0;
    let inflatedTotal = 0;
    let budgetExhausted = false;

    for (const entry of files) {
      signal?.throwIfAborted();
      const path = normalizeEntryName(entry.name);
      const listed = byPath.get(path);
      if (listed) found.add(path);
      try {
        if (budgetExhausted) throw budgetRejection(limits);
        if (entry.nameTooLong || !isSafeEntryPath(entry.name)) throw new EntryRejected("unsafe path");
        if (seen.has(path)) throw new EntryRejected("duplicate entry");
        seen.add(path);
        if (isSymlink(entry)) throw new EntryRejected("symbolic link");
        if (entry.flags & FLAG_ENCRYPTED) throw new EntryRejected("encrypted entry");
        if (hasArchiveExtension(path)) throw new EntryRejected("nested archive");
        if (!listed) throw new EntryRejected("not listed in manifest");
        if (entry.method !== METHOD_STORED && entry.method !== METHOD_DEFLATE) {
          throw new EntryRejected(`unsupported compression method ${entry.method}`);
        }
        if (overlapping.has(entry.index)) throw new EntryRejected("decompression bomb: entry data overlaps another entry");
        checkDeclaredSize(entry, limits);
        if (entry.uncompressedSize !== listed.sizeBytes) {
          throw new EntryRejected(
            `size does not match manifest (archive ${entry.uncompressedSize} bytes, manifest ${listed.sizeBytes})`,
          );
        }
        if (inflatedTotal + entry.uncompressedSize > limits.maxTotalInflatedBytes) {
          budgetExhausted = true;
          throw budgetRejection(limits);
        }

        const dataOffset = await locateEntryData(reader, entry, eocd.centralDirectoryOffset);
        // Counted before inflating: a bomb's bytes are spent even though the entry is refused.
        inflatedTotal += entry.uncompressedSize;
        const bytes = await readEntryData(reader, entry, dataOffset, signal);
        if (hasArchiveMagic(bytes)) throw new EntryRejected("nested archive");
        const hash = createHash("sha256").update(bytes).digest("hex");
        if (hash !== listed.contentHash.toLowerCase()) throw new EntryRejected("content hash does not match manifest");

        await onFile({ relativePath: listed.relativePath, bytes });
        accepted++;
      } catch (e) {
        if (!(e instanceof EntryRejected)) throw e;
        const r = { sourceFile: entry.name, reason: e.reason };
        rejected.push(r);
        opts.onReject?.(r);
      }
    }

    const missing = manifest.filter((item) => !found.has(normalizeEntryName(item.relativePath))).map((item) => item.relativePath);
    return { accepted, rejected, missing };
  } finally {
    await reader.close();
  }
}

function isDirectory(entry: CentralEntry): boolean {
  return entry.name.endsWith("/");
}

function isSymlink(entry: CentralEntry): boolean {
  // Unix mode lives in the high 16 bits of the external attributes.
  return ((entry.externalAttributes >>> 16) & S_IFMT) === S_IFLNK;
}

function checkDeclaredSize(entry: CentralEntry, limits: ArchiveLimits): void {
  const declared = entry.uncompressedSize;
  if (declared > limits.maxEntryBytes) {
    throw new EntryRejected(
      `decompression bomb: declared size ${declared} bytes exceeds the ${limits.maxEntryBytes}-byte entry limit`,
    );
  }
  if (declared >= RATIO_CHECK_MIN_BYTES) {
    const ratio = declared / Math.max(entry.compressedSize, 1);
    if (ratio > limits.maxRatio) {
      throw new EntryRejected(
        `decompression bomb: compression ratio ${Math.round(ratio)}:1 exceeds the ${limits.maxRatio}:1 limit`,
      );
    }
  }
}

function budgetRejection(limits: ArchiveLimits): EntryRejected {
  return new EntryRejected(
    `decompression bomb: archive exceeds the ${limits.maxTotalInflatedBytes}-byte total inflated limit`,
  );
}
