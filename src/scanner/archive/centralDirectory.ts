import { ArchiveError } from "./ArchiveError.ts";
import type { EndOfCentralDirectory } from "./endOfCentralDirectory.ts";
import { u64 } from "./endOfCentralDirectory.ts";
import { decodeEntryName, MAX_NAME_BYTES } from "./entryName.ts";
import type { PositionedReader } from "./PositionedReader.ts";

const CENTRAL_HEADER_SIGNATURE = 0x02014b50;
const CENTRAL_HEADER_BYTES = 46;
const ZIP64_EXTRA_ID = 0x0001;

/** What the central directory says about one entry (the source of truth, not the local header). */
export interface CentralEntry {
  /** Position in the central directory. */
  index: number;
  /** Decoded name, or a truncated form followed by "…" when `nameTooLong`. */
  name: string;
  /** Raw name bytes, kept to compare with the local header (empty when too long). */
  nameBytes: Uint8Array;
  nameLength: number;
  nameTooLong: boolean;
  versionMadeBy: number;
  flags: number;
  method: number;
  crc32: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
  externalAttributes: number;
}

/**
 * Walks the central directory, calling `visit` for each entry in order,
 * without holding more than one header at a time. Any structural problem
 * makes the archive unreadable as a whole.
 */
export async function walkCentralDirectory(
  reader: PositionedReader,
  eocd: EndOfCentralDirectory,
  visit: (entry: CentralEntry) => void,
): Promise<void> {
  const end = eocd.centralDirectoryOffset + eocd.centralDirectorySize;
  let position = eocd.centralDirectoryOffset;
  for (let index = 0; index < eocd.totalEntries; index++) {
    if (position + CENTRAL_HEADER_BYTES > end) throw corrupt(`entry ${index} runs past its end`);
    const header = await reader.read(position, CENTRAL_HEADER_BYTES);
    const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
    if (view.getUint32(0, true) !== CENTRAL_HEADER_SIGNATURE) throw corrupt(`bad signature for entry ${index}`);
    const nameLength = view.getUint16(28, true);
    const extraLength = view.getUint16(30, true);
    const commentLength = view.getUint16(32, true);
    const recordEnd = position + CENTRAL_HEADER_BYTES + nameLength + extraLength + commentLength;
    if (recordEnd > end) throw corrupt(`entry ${index} runs past its end`);

    const flags = view.getUint16(8, true);
    let compressedSize = view.getUint32(20, true);
    let uncompressedSize = view.getUint32(24, true);
    let localHeaderOffset = view.getUint32(42, true);
    const entry = {
      index,
      versionMadeBy: view.getUint16(4, true),
      flags,
      method: view.getUint16(10, true),
      crc32: view.getUint32(16, true),
      externalAttributes: view.getUint32(38, true),
      nameLength,
    };

    const nameStart = position + CENTRAL_HEADER_BYTES;
    const nameTooLong = nameLength > MAX_NAME_BYTES;
    const nameBytes = nameTooLong ? new Uint8Array(0) : (await reader.read(nameStart, nameLength)).slice();
    const name = nameTooLong
      ? `${decodeEntryName((await reader.read(nameStart, 200)).slice(), flags)}…`
      : decodeEntryName(nameBytes, flags);

    if (compressedSize === 0xffffffff || uncompressedSize === 0xffffffff || localHeaderOffset === 0xffffffff) {
      const extra = await reader.read(nameStart + nameLength, extraLength);
      const zip64 = findExtraField(extra, ZIP64_EXTRA_ID);
      if (!zip64) throw corrupt(`entry ${index} lacks its zip64 extra field`);
      // Only the fields saturated in the fixed header are present, in this order.
      let at = 0;
      const next = (): number => {
        if (at + 8 > zip64.byteLength) throw corrupt(`entry ${index} has a short zip64 extra field`);
        const value = u64(zip64, at);
        at += 8;
        return value;
      };
      if (uncompressedSize === 0xffffffff) uncompressedSize = next();
      if (compressedSize === 0xffffffff) compressedSize = next();
      if (localHeaderOffset === 0xffffffff) localHeaderOffset = next();
    }

    visit({ ...entry, name, nameBytes, nameTooLong, compressedSize, uncompressedSize, localHeaderOffset });
    position = recordEnd;
  }
}

function findExtraField(extra: Uint8Array, id: number): DataView | undefined {
  const view = new DataView(extra.buffer, extra.byteOffset, extra.byteLength);
  let at = 0;
  while (at + 4 <= extra.length) {
    const fieldId = view.getUint16(at, true);
    const size = view.getUint16(at + 2, true);
    if (at + 4 + size > extra.length) return undefined;
    if (fieldId === id) return new DataView(extra.buffer, extra.byteOffset + at + 4, size);
    at += 4 + size;
  }
  return undefined;
}

function corrupt(detail: string): ArchiveError {
  return new ArchiveError(`corrupt ZIP central directory: ${detail}`);
}
