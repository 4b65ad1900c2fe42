import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, unlinkSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { indexBytes, type EncodedIndex, type IndexMeta } from "./ivfSnapshot.ts";

/**
 * The IVF index of a project's snapshot as a part of its own, beside the rows' file (`<project>.ivf` next to
 * `<project>.vc`). Why apart: the index is trained again each time the project doubles, and in one file each
 * training rewrote every row too (~2 GB at 1M chunks) to change a few MB; now a training writes this part only.
 *
 * The part names the rows' file it was made over: its stamp (a random id each rows' file gets when written) and
 * row count, since the lists are row numbers in that file's order. A part whose stamp, rows, dimensions or
 * version disagree with the rows' file loaded beside it is never used (it is deleted and the index trained again);
 * the index's own checks (ivfSnapshot.ts decodeIndex) come after. Written to a temporary file and renamed: a crash
 * leaves the old part or the new one, and a rows' file renamed in without its part only costs a training.
 *
 * Layout: a magic, the JSON header's length, the header, zero padding to 64 bytes, then the index's sections.
 */

const MAGIC = "LHVIVFP1";
const PART_VERSION = 1;
const ALIGN = 64;

export interface IndexPartHeader {
  v: number;
  /** the rows' file this index lists: its stamp, rows and dimensions */
  rowsStamp: string;
  rows: number;
  dims: number;
  index: IndexMeta;
  /** sparse queries were scanned by columns when it was written (as the rows' header says, kept here too) */
  columns?: boolean;
}

export interface IndexPart {
  header: IndexPartHeader;
  /** the index sections, exactly indexBytes long */
  bytes: Uint8Array;
}

/** The index part that goes beside a rows' file (`….vc` → `….ivf`). */
export function indexPartPath(rowsPath: string): string {
  return rowsPath.replace(/\.vc$/, "") + ".ivf";
}

/** Removes the part beside a rows' file; a missing one is fine. */
export function dropIndexPart(rowsPath: string): void {
  try {
    unlinkSync(indexPartPath(rowsPath));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
}

/** What of the rows' file's header a part is checked against (cacheSnapshot.ts SnapshotHeader). */
interface RowsHeader {
  stamp?: string;
  rows: number;
  dims: number;
}

/** Writes the part to its path + ".tmp" and returns that path (the caller renames it into place). */
export async function writeIndexPartTmp(rowsPath: string, rows: { stamp: string; rows: number; dims: number }, index: EncodedIndex, columns: boolean): Promise<string> {
  const header: IndexPartHeader = { v: PART_VERSION, rowsStamp: rows.stamp, rows: rows.rows, dims: rows.dims, index: index.meta, ...(columns ? { columns: true } : {}) };
  const json = Buffer.from(JSON.stringify(header));
  const head = Buffer.alloc(Math.ceil((12 + json.length) / ALIGN) * ALIGN);
  head.write(MAGIC, 0, "latin1");
  head.writeUInt32LE(json.length, 8);
  json.copy(head, 12);
  const path = indexPartPath(rowsPath);
  mkdirSync(join(path, ".."), { recursive: true });
  const tmp = `${path}.tmp`;
  const parts = [head, ...index.sections.map((s) => new Uint8Array(s.buffer, s.byteOffset, s.byteLength))];
  await writeFile(tmp, Buffer.concat(parts));
  return tmp;
}

/**
 * The stamp of the rows the part beside a rows' file lists (its header alone read), or null when there is no
 * readable part: a rows' file with a tail (rowsTail.ts) has a stamp per view, and a part may list any of them.
 */
export function indexPartStamp(rowsPath: string): string | null {
  const path = indexPartPath(rowsPath);
  if (!existsSync(path)) return null;
  let fd = -1;
  try {
    fd = openSync(path, "r");
    const head = Buffer.alloc(12);
    if (readSync(fd, head, 0, 12, 0) !== 12 || head.toString("latin1", 0, 8) !== MAGIC) return null;
    const len = head.readUInt32LE(8);
    const json = Buffer.alloc(len);
    if (readSync(fd, json, 0, len, 12) !== len) return null;
    const stamp = (JSON.parse(json.toString("utf8")) as Partial<IndexPartHeader>).rowsStamp;
    return typeof stamp === "string" ? stamp : null;
  } catch {
    return null;
  } finally {
    if (fd >= 0) closeSync(fd);
  }
}

/**
 * The part beside a rows' file, when it was made over exactly that file (`rows`: its header); null when there is
 * none, or it is unreadable or made over other rows. `found` tells a present but unusable part from none.
 */
export function readIndexPart(rowsPath: string, rows: RowsHeader): { part: IndexPart | null; found: boolean } {
  const path = indexPartPath(rowsPath);
  if (!existsSync(path)) return { part: null, found: false };
  try {
    const file = readFileSync(path);
    if (file.length < 12 || file.toString("latin1", 0, 8) !== MAGIC) return { part: null, found: true };
    const len = file.readUInt32LE(8);
    const header = JSON.parse(file.toString("utf8", 12, 12 + len)) as IndexPartHeader;
    const at = Math.ceil((12 + len) / ALIGN) * ALIGN;
    const fits = header.v === PART_VERSION && typeof rows.stamp === "string" && header.rowsStamp === rows.stamp && header.rows === rows.rows && header.dims === rows.dims && header.index && typeof header.index === "object";
    if (!fits) return { part: null, found: true };
    const want = indexBytes(header.index, rows.dims, rows.rows);
    if (!Number.isSafeInteger(want) || want <= 0 || file.length !== at + want) return { part: null, found: true };
    // copied into a buffer of its own: aligned for the index's typed views, and nothing of the read kept
    const bytes = new Uint8Array(want);
    bytes.set(file.subarray(at));
    return { part: { header, bytes }, found: true };
  } catch {
    return { part: null, found: true };
  }
}
