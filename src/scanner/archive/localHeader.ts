import { EntryRejected } from "./EntryRejected.ts";
import type { CentralEntry } from "./centralDirectory.ts";
import type { PositionedReader } from "./PositionedReader.ts";

const LOCAL_HEADER_SIGNATURE = 0x04034b50;
const LOCAL_HEADER_BYTES = 30;
const FLAG_ENCRYPTED = 0x1;

/**
 * Checks the entry's local header against the central directory and returns
 * where its data starts. A local header that disagrees (another name, method
 * or encryption flag) is how archives show one file to a scanner and another
 * to an extractor, so it is refused.
 */
export async function locateEntryData(
  reader: PositionedReader,
  entry: CentralEntry,
  dataLimit: number,
): Promise<number> {
  const offset = entry.localHeaderOffset;
  if (offset + LOCAL_HEADER_BYTES > dataLimit) throw new EntryRejected("corrupt entry: local header outside the archive");
  const header = await reader.read(offset, LOCAL_HEADER_BYTES);
  const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
  if (view.getUint32(0, true) !== LOCAL_HEADER_SIGNATURE) throw new EntryRejected("corrupt entry: local header not found");
  const flags = view.getUint16(6, true);
  const method = view.getUint16(8, true);
  const nameLength = view.getUint16(26, true);
  const extraLength = view.getUint16(28, true);
  if (flags & FLAG_ENCRYPTED) throw new EntryRejected("encrypted entry");
  if (method !== entry.method) throw new EntryRejected("corrupt entry: local header disagrees with central directory");
  if (nameLength !== entry.nameLength) throw new EntryRejected("corrupt entry: local header disagrees with central directory");
  const dataOffset = offset + LOCAL_HEADER_BYTES + nameLength + extraLength;
  if (dataOffset + entry.compressedSize > dataLimit) throw new EntryRejected("corrupt entry: data runs past the end of the archive");
  const localName = await reader.read(offset + LOCAL_HEADER_BYTES, nameLength);
  if (!localName.every((b, i) => b === entry.nameBytes[i])) {
    throw new EntryRejected("corrupt entry: local header disagrees with central directory");
  }
  return dataOffset;
}
