import { ArchiveError } from "./ArchiveError.ts";
import type { PositionedReader } from "./PositionedReader.ts";

const EOCD_SIGNATURE = 0x06054b50;
const EOCD_BYTES = 22;
const MAX_COMMENT_BYTES = 0xffff;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const ZIP64_LOCATOR_BYTES = 20;
const ZIP64_EOCD_SIGNATURE = 0x06064b50;
const ZIP64_EOCD_BYTES = 56;

export interface EndOfCentralDirectory {
  totalEntries: number;
  centralDirectoryOffset: number;
  centralDirectorySize: number;
  /** Where the (zip64) end records start: entry data and the central directory lie before it. */
  endOffset: number;
}

/**
 * Finds the end-of-central-directory record (and its zip64 counterpart) by
 * scanning the last 64 KiB + 22 bytes backwards. The record must end exactly
 * at the end of the file (its comment included), so a signature inside a
 * comment or appended garbage is not taken for it.
 */
export async function readEndOfCentralDirectory(reader: PositionedReader): Promise<EndOfCentralDirectory> {
  if (reader.size < EOCD_BYTES) throw new ArchiveError("not a ZIP archive: end of central directory not found");
  const tailLength = Math.min(reader.size, EOCD_BYTES + MAX_COMMENT_BYTES);
  const tailStart = reader.size - tailLength;
  const tail = (await reader.read(tailStart, tailLength)).slice();
  const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);

  let at = -1;
  for (let i = tail.length - EOCD_BYTES; i >= 0; i--) {
    if (view.getUint32(i, true) === EOCD_SIGNATURE && i + EOCD_BYTES + view.getUint16(i + 20, true) === tail.length) {
      at = i;
      break;
    }
  }
  if (at < 0) throw new ArchiveError("not a ZIP archive (or truncated): end of central directory not found");

  const eocdOffset = tailStart + at;
  const disk = view.getUint16(at + 4, true);
  const centralDirectoryDisk = view.getUint16(at + 6, true);
  const entriesOnDisk = view.getUint16(at + 8, true);
  let totalEntries = view.getUint16(at + 10, true);
  let centralDirectorySize = view.getUint32(at + 12, true);
  let centralDirectoryOffset = view.getUint32(at + 16, true);
  let endOffset = eocdOffset;

  const locatorOffset = eocdOffset - ZIP64_LOCATOR_BYTES;
  const hasLocator =
    locatorOffset >= 0 &&
    new DataView((await reader.read(locatorOffset, 4)).slice().buffer).getUint32(0, true) === ZIP64_LOCATOR_SIGNATURE;
  const needsZip64 = totalEntries === 0xffff || centralDirectorySize === 0xffffffff || centralDirectoryOffset === 0xffffffff;

  if (hasLocator) {
    const locator = dataView(await reader.read(locatorOffset, ZIP64_LOCATOR_BYTES));
    const zip64Offset = u64(locator, 8);
    if (locator.getUint32(4, true) !== 0 || locator.getUint32(16, true) > 1) {
      throw new ArchiveError("multi-disk (spanned) ZIP archives are not supported");
    }
    if (zip64Offset + ZIP64_EOCD_BYTES > locatorOffset) throw new ArchiveError("corrupt zip64 end of central directory locator");
    const record = dataView(await reader.read(zip64Offset, ZIP64_EOCD_BYTES));
    if (record.getUint32(0, true) !== ZIP64_EOCD_SIGNATURE) throw new ArchiveError("corrupt zip64 end of central directory record");
    if (record.getUint32(16, true) !== 0 || record.getUint32(20, true) !== 0 || u64(record, 24) !== u64(record, 32)) {
      throw new ArchiveError("multi-disk (spanned) ZIP archives are not supported");
    }
    totalEntries = u64(record, 32);
    centralDirectorySize = u64(record, 40);
    centralDirectoryOffset = u64(record, 48);
    endOffset = zip64Offset;
  } else if (needsZip64) {
    throw new ArchiveError("corrupt ZIP archive: zip64 end of central directory locator not found");
  } else if (disk !== 0 || centralDirectoryDisk !== 0 || entriesOnDisk !== totalEntries) {
    throw new ArchiveError("multi-disk (spanned) ZIP archives are not supported");
  }

  if (centralDirectoryOffset + centralDirectorySize > endOffset) {
    throw new ArchiveError("corrupt or truncated ZIP archive: central directory lies outside the file");
  }
  return { totalEntries, centralDirectoryOffset, centralDirectorySize, endOffset };
}

function dataView(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** A little-endian 64-bit field; anything past 2^53 cannot be a real offset in a 200 MB upload. */
export function u64(view: DataView, offset: number): number {
  const value = view.getBigUint64(offset, true);
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new ArchiveError("corrupt ZIP archive: 64-bit field out of range");
  return Number(value);
}
