import type { CentralEntry } from "./centralDirectory.ts";

const LOCAL_HEADER_BYTES = 30;

/**
 * Indexes of entries whose data overlaps another entry's: the trick of
 * "non-recursive" zip bombs (many central records over one shared kernel).
 * No honest writer produces it. The span used is a lower bound of the real one
 * (fixed local header + compressed data; the local name and extra field are
 * not trusted to match the central record), so a hit is certain.
 */
export function findOverlappingEntries(entries: CentralEntry[]): Set<number> {
  const sorted = [...entries].sort((a, b) => a.localHeaderOffset - b.localHeaderOffset);
  const overlapping = new Set<number>();
  let furthest: CentralEntry | undefined;
  let furthestEnd = -1;
  for (const entry of sorted) {
    if (furthest && entry.localHeaderOffset < furthestEnd) {
      overlapping.add(entry.index);
      overlapping.add(furthest.index);
    }
    const end = entry.localHeaderOffset + LOCAL_HEADER_BYTES + entry.compressedSize;
    if (end > furthestEnd) {
      furthest = entry;
      furthestEnd = end;
    }
  }
  return overlapping;
}
