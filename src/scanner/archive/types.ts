/** One file the studio declared in the scan manifest. */
export interface ManifestEntry {
  relativePath: string;
  sizeBytes: number;
  /** SHA-256 of the file's bytes, hex, lower-case. */
  contentHash: string;
}

/** Decompression-bomb limits; every field has a default (DEFAULT_ARCHIVE_LIMITS). */
export interface ArchiveLimits {
  /** Largest inflated entry accepted (default 50 MB). */
  maxEntryBytes: number;
  /** Largest declared uncompressed:compressed ratio for an entry (default 200). */
  maxRatio: number;
  /** Inflated bytes of the whole archive; once reached, the rest is rejected (default 1 GB). */
  maxTotalInflatedBytes: number;
  /** Entries in the central directory; more makes the whole archive unreadable (default 10,000). */
  maxEntries: number;
}

export const DEFAULT_ARCHIVE_LIMITS: Readonly<ArchiveLimits> = Object.freeze({
  maxEntryBytes: 50 * 1024 * 1024,
  maxRatio: 200,
  maxTotalInflatedBytes: 1024 * 1024 * 1024,
  maxEntries: 10_000,
});

export interface AcceptedFile {
  /** The manifest's spelling of the path. */
  relativePath: string;
  bytes: Uint8Array;
}

export interface RejectedFile {
  /** The entry's name as stored in the archive. */
  sourceFile: string;
  reason: string;
}

export interface ReadArchiveResult {
  accepted: number;
  rejected: RejectedFile[];
  /** Manifest entries not found in the archive. */
  missing: string[];
}

export interface ReadArchiveOptions {
  limits?: Partial<ArchiveLimits>;
  signal?: AbortSignal;
  /** Called as each entry is rejected, in archive order (progress reporting); also listed in the result. */
  onReject?: (r: RejectedFile) => void;
}
