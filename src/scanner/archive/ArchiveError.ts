/**
 * The archive as a whole cannot be read (not a ZIP, truncated, corrupt central
 * directory, multi-disk, too many entries). Problems with a single entry are
 * never thrown: they become a RejectedFile and the scan goes on.
 */
export class ArchiveError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ArchiveError";
  }
}
