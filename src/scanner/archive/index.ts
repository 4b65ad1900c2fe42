export { ArchiveError } from "./ArchiveError.ts";
export { isReadableZip } from "./isZip.ts";
export { readArchive } from "./readArchive.ts";
export * from "./types.ts";
