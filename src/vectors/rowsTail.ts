import { closeSync, existsSync, fstatSync, mkdirSync, openSync, renameSync, truncateSync, unlinkSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { putRows, readFully, rowsLayout, type SnapshotFile } from "./cacheSnapshot.ts";
import { decodeRows, encodeRows, headerRowCount, type HeaderCols, type HeaderDoc, type SnapshotDoc } from "./headerRows.ts";
import type { DocumentBlock } from "./cacheBlocks.ts";
import { FileVectors, SnapshotReader, type RowsAt } from "./fullVectors.ts";
import { dropIndexPart } from "./indexPart.ts";
import { StagedWriter } from "./stagedWrite.ts";

/**
 * The rows' file's tail (`<project>.vct` beside `<project>.vc`): what changed since the rows' file was written,
 * appended a segment per save, so a project edited a little writes its new rows and the ids of its removed
 * documents instead of every row again (~2 GB at 1M chunks). ProjectCaches folds the tail into a new rows' file
 * once it passes a share of the rows.
 *
 * The rows a load restores (the "view"): the rows' file's documents, then per segment in order, its removed
 * documents taken out and its documents put at the end. Each view has a stamp: the rows' file's own, then each
 * segment's. A segment names the rows' file it extends (`base`), the view it applies to (`prev`), its own stamp and
 * the view's row count after it, so a segment can only ever be applied to the rows it was written over. The index
 * part (indexPart.ts) names the stamp of the view it lists, so its row numbers stay those of the rows restored.
 *
 * How a crash stays safe: a write to the project first renames the rows' file aside (`holdRows`, `….vc.held`);
 * a load finds no rows' file and goes to LanceDB. A save appends its segment, writes the index part, and only then
 * renames the rows' file back (`releaseRows`): a crash at any step before leaves it aside. So whenever a rows' file
 * is found, every segment in its tail was committed with it. A tail whose first segment names another rows' file is
 * left over from before that file and ignored; a segment cut short, garbled or out of order sends the load to
 * LanceDB.
 *
 * Layout of a segment: a magic, the JSON header's length, zeros to 16 bytes, the header, then as in the rows' file
 * the rows' int8 codes, scales and unit float32 vectors, each section and the segment's end aligned to 64 bytes.
 */

const MAGIC = "LHVTAIL1";
/** 2: rows by column (headerRows.ts); 1: by document, still read (code from before reads no version 2 segment: LanceDB then) */
const TAIL_VERSION = 2;
const ALIGN = 64;
const pad = (n: number) => Math.ceil(n / ALIGN) * ALIGN;

export interface TailHeader {
  v: number;
  /** the stamp of the rows' file it extends */
  base: string;
  /** the view it applies to (the rows' file's stamp for the first segment) and the view after it */
  prev: string;
  stamp: string;
  /** rows in the view after it */
  rows: number;
  dims: number;
  /** documents taken out of the view (replaced ones too: put back below) */
  removed: string[];
  hasFull: boolean;
  columns?: boolean;
  strings: string[];
  docs: HeaderDoc[];
  cols?: HeaderCols;
}

/** A segment as read: the view's stamp and rows after it, the documents it removed and those it put at the end. */
export interface TailSegment {
  stamp: string;
  rows: number;
  removed: string[];
  docs: SnapshotFile["docs"];
  columns: boolean;
}

/** What a rows' file's tail holds: its bytes (where the next segment goes), its rows, its segments. */
export interface TailState {
  bytes: number;
  rows: number;
  segments: number;
}

export const tailPath = (rowsPath: string): string => rowsPath.replace(/\.vc$/, "") + ".vct";
export const heldPath = (rowsPath: string): string => `${rowsPath}.held`;

const unlinkQuiet = (path: string) => {
  try {
    unlinkSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
};

/**
 * Before a write to the project commits: the rows' file aside, kept for its tail. The index part stays: it lists
 * a view the tail still holds (restoreRows.ts), and is read only beside a rows' file in place.
 */
export function holdRows(rowsPath: string): void {
  try {
    renameSync(rowsPath, heldPath(rowsPath));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e; // already aside, or none
  }
}

/** The last step of a save that appended to the tail: the rows' file back in place (throws when it is gone). */
export function releaseRows(rowsPath: string): void {
  if (existsSync(heldPath(rowsPath))) renameSync(heldPath(rowsPath), rowsPath);
  else if (!existsSync(rowsPath)) throw new Error("the rows' file is gone");
}

/** Every file of a project's rows: the rows' file (in place or aside), its tail and its index part. */
export function dropRowsFiles(rowsPath: string): void {
  // the rows' file first: with it gone, nothing left behind is ever read
  unlinkQuiet(rowsPath);
  unlinkQuiet(heldPath(rowsPath));
  unlinkQuiet(tailPath(rowsPath));
  dropIndexPart(rowsPath);
}

/** Cuts the tail back to `bytes` (a segment written across a write to the project is not kept). */
export function truncateTail(rowsPath: string, bytes: number): void {
  if (bytes === 0) return unlinkQuiet(tailPath(rowsPath));
  try {
    truncateSync(tailPath(rowsPath), bytes);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e; // the write deleted every file of the rows
  }
}

/**
 * Appends a segment at byte `at` of the tail (anything after `at` is cut: left over from a segment not kept);
 * the new end, and the float32 rows of `blocks` in the tail for ProjectVectorCache.adoptSnapshotRows.
 */
export async function appendSegment(rowsPath: string, at: number, head: Omit<TailHeader, "v" | "hasFull" | "strings" | "docs" | "cols">, blocks: DocumentBlock[]): Promise<{ end: number; views: Map<DocumentBlock, RowsAt> }> {
  const path = tailPath(rowsPath);
  mkdirSync(join(path, ".."), { recursive: true });
  const { strings, docs, cols, rows, hasFull } = encodeRows(blocks);
  const header: TailHeader = { v: TAIL_VERSION, ...head, hasFull, strings, docs, cols };
  const json = Buffer.from(JSON.stringify(header));
  const fh = await open(path, existsSync(path) ? "r+" : "w+");
  let end: number;
  try {
    if ((await fh.stat()).size < at) throw new Error("the tail is shorter than its segments");
    await fh.truncate(at);
    const first = Buffer.alloc(16);
    first.write(MAGIC, 0, "latin1");
    first.writeUInt32LE(json.length, 8);
    const out = new StagedWriter(fh, at, ALIGN);
    await out.put(first);
    await out.put(json);
    await putRows(out, blocks, head.dims, hasFull);
    await out.pad();
    await out.drain();
    end = out.at;
  } finally {
    await fh.close();
  }
  const views = new Map<DocumentBlock, RowsAt>();
  if (hasFull) {
    const { fullAt } = rowsLayout(at + 16 + json.length, rows, head.dims, hasFull);
    const full = new FileVectors(SnapshotReader.open(path), fullAt, rows, head.dims);
    let r = 0;
    for (const b of blocks) {
      views.set(b, { full, at: r });
      r += b.n;
    }
  }
  return { end, views };
}

/**
 * The rows' file with its tail applied: the view's documents, its stamp and rows in the header (and no index
 * section of the rows' file's own once a segment changed its rows), and the tail's state; the rows' file alone
 * when there is no tail or the tail is left over from another rows' file; null when a segment is cut short,
 * garbled or does not follow (the load then goes to LanceDB).
 */
export function readTail(rowsPath: string, base: SnapshotFile): { file: SnapshotFile; tail: TailState; segments: TailSegment[] } | null {
  const none = { file: base, tail: { bytes: 0, rows: 0, segments: 0 }, segments: [] };
  const read: TailSegment[] = [];
  const baseStamp = base.header.stamp;
  const path = tailPath(rowsPath);
  if (typeof baseStamp !== "string" || !existsSync(path)) return none;
  let fd = -1;
  let reader: SnapshotReader | null = null;
  try {
    // read through one descriptor; once a document's float32 rows read from it, a reader owns it (closed when unused)
    fd = openSync(path, "r");
    const size = fstatSync(fd).size;
    const view = new Map<string, SnapshotDoc>(base.docs.map((d) => [d.documentId, d]));
    let stamp = baseStamp;
    let columns = base.header.columns === true;
    let at = 0;
    let rows = 0;
    let segments = 0;
    const dims = base.header.dims;
    while (at < size) {
      const first = Buffer.alloc(16);
      if (!readFully(fd, first, at) || first.toString("latin1", 0, 8) !== MAGIC) return null;
      const len = first.readUInt32LE(8);
      const json = Buffer.alloc(len);
      if (!readFully(fd, json, at + 16)) return null;
      const h = JSON.parse(json.toString("utf8")) as TailHeader;
      // a tail begun over another rows' file: left over, never applied (the next append starts it again)
      if (segments === 0 && h.base !== baseStamp) return none;
      if ((h.v !== TAIL_VERSION && h.v !== 1) || h.base !== baseStamp || h.prev !== stamp || h.dims !== dims || !Array.isArray(h.removed)) return null;
      const n = headerRowCount(h);
      if (n < 0) return null;
      const layout = rowsLayout(at + 16 + len, n, dims, h.hasFull);
      if (layout.end > size) return null;
      const part = Buffer.alloc(layout.scalesAt + n * 4 - layout.codesAt);
      if (!readFully(fd, part, layout.codesAt)) return null;
      const codes = new Int8Array(part.buffer, part.byteOffset, n * dims);
      const scales = new Float32Array(part.buffer, part.byteOffset + layout.scalesAt - layout.codesAt, n);
      if (h.hasFull && !reader) reader = new SnapshotReader(fd);
      const docs = decodeRows(h, codes, scales, h.hasFull ? new FileVectors(reader!, layout.fullAt, n, dims) : null, dims, true);
      if (!docs) return null;
      for (const id of h.removed) if (!view.delete(id)) return null;
      for (const d of docs) {
        if (view.has(d.documentId)) return null;
        view.set(d.documentId, d);
      }
      let live = 0;
      for (const d of view.values()) live += d.n;
      if (live !== h.rows) return null;
      stamp = h.stamp;
      columns = h.columns === true;
      read.push({ stamp, rows: h.rows, removed: h.removed, docs, columns });
      rows += n;
      segments++;
      at = pad(layout.end);
    }
    if (segments === 0) return none;
    const { index: _, ...header } = base.header;
    return { file: { header: { ...header, stamp, rows: [...view.values()].reduce((s, d) => s + d.n, 0), columns }, docs: [...view.values()], index: null }, tail: { bytes: at, rows, segments }, segments: read };
  } catch {
    return null;
  } finally {
    if (fd >= 0 && !reader) closeSync(fd);
  }
}
