const ARCHIVE_EXTENSIONS = [
  ".zip", ".7z", ".rar", ".tar", ".gz", ".tgz", ".jar",
  ".bz2", ".tbz", ".tbz2", ".xz", ".txz", ".zst", ".war", ".ear", ".apk", ".cab",
];

/** By extension: an archive inside the archive is never scanned (it would dodge every limit here). */
export function hasArchiveExtension(name: string): boolean {
  const lower = name.toLowerCase();
  return ARCHIVE_EXTENSIONS.some((ext) => lower.endsWith(ext));
}

const MAGICS: ReadonlyArray<{ offset: number; bytes: number[] }> = [
  { offset: 0, bytes: [0x50, 0x4b, 0x03, 0x04] }, // zip local header
  { offset: 0, bytes: [0x50, 0x4b, 0x05, 0x06] }, // empty zip
  { offset: 0, bytes: [0x50, 0x4b, 0x07, 0x08] }, // spanned zip
  { offset: 0, bytes: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c] }, // 7z
  { offset: 0, bytes: [0x52, 0x61, 0x72, 0x21, 0x1a, 0x07] }, // Rar!
  { offset: 0, bytes: [0x1f, 0x8b, 0x08] }, // gzip (deflate)
  { offset: 0, bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00] }, // xz
  { offset: 0, bytes: [0x28, 0xb5, 0x2f, 0xfd] }, // zstd
  { offset: 0, bytes: [0x4d, 0x53, 0x43, 0x46] }, // cab "MSCF"
  { offset: 257, bytes: [0x75, 0x73, 0x74, 0x61, 0x72] }, // tar "ustar"
];

/** By content: a renamed archive (`lore.txt` that is really a ZIP) is caught here. */
export function hasArchiveMagic(bytes: Uint8Array): boolean {
  return isBzip2(bytes) || MAGICS.some(
    ({ offset, bytes: magic }) =>
      bytes.length >= offset + magic.length && magic.every((b, i) => bytes[offset + i] === b),
  );
}

/** "BZh" + block size digit + the block (pi) or end-of-stream (sqrt pi) magic, so prose starting "BZh" passes. */
function isBzip2(b: Uint8Array): boolean {
  if (b.length < 7 || b[0] !== 0x42 || b[1] !== 0x5a || b[2] !== 0x68) return false;
  if (b[3] < 0x31 || b[3] > 0x39) return false;
  return (b[4] === 0x31 && b[5] === 0x41 && b[6] === 0x59) || (b[4] === 0x17 && b[5] === 0x72 && b[6] === 0x45);
}
