import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readSync, renameSync, rmSync, unlinkSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { blockCodes, type DocumentBlock } from "./cacheBlocks.ts";
import { FileVectors, SnapshotReader, type RowsAt } from "./fullVectors.ts";
import { decodeRows, encodeRows, headerDocCounts, type HeaderCols, type HeaderDoc, type SnapshotDoc } from "./headerRows.ts";
import type { ProjectVectorCache } from "./ProjectVectorCache.ts";
import { decodeIndex, indexBytes, type EncodedIndex, type IndexMeta } from "./ivfSnapshot.ts";
import type { IndexPart } from "./indexPart.ts";
import { StagedWriter } from "./stagedWrite.ts";

/**
 * A project's vector cache as one file beside the LanceDB tables, so a cold
 * start reads it back in one go instead of decoding the Lance columns of every
 * row (seconds at 100k chunks: bench/scale-load.ts). Layout: a magic, a JSON
 * header (the rows apart from their vectors, and what the file was made from),
 * then every row's int8 codes, their scales, and their unit float32 vectors
 * (the re-scoring's full precision, read through a memory map: only the pages
 * of a search's candidates are ever touched). The IVF index is a part of its
 * own beside it (indexPart.ts), so training it again rewrites only that part;
 * files written before kept it here, after the vectors, when the header says
 * so (ivfSnapshot.ts), and still load with it. A file with neither loads the
 * same; its index is trained anew.
 *
 * Why a file that is deleted at every write rather than one kept up to date:
 * this process is LanceDB's only writer, so unlinking a project's file before
 * each commit to it makes any file found at load as new as the table; the row
 * count is checked too, and anything else that disagrees sends the load back
 * to LanceDB, the store of record.
 */

const MAGIC = "LHVCACH1";
const ALIGN = 64;

export interface SnapshotHeader {
  /** a random id per written file: the index part beside it names the rows it lists (absent in older files) */
  stamp?: string;
  gen: number;
  embedderId: string;
  dims: number;
  projectId: string;
  rows: number;
  hasFull: boolean;
  strings: string[];
  /** the rows apart from their vectors: by column (headerRows.ts), or in files written before, by document */
  docs: HeaderDoc[];
  cols?: HeaderCols;
  /** the IVF index section after the vectors, in files written before the index had a part of its own */
  index?: IndexMeta;
  /** sparse queries were scanned by columns: a restored cache builds its column copy at once */
  columns?: boolean;
}

/** What a snapshot holds beside the rows. */
export interface SnapshotExtras {
  index: EncodedIndex | null;
  columns: boolean;
}

export type { FileRows, HeaderDoc, SnapshotDoc } from "./headerRows.ts";

export interface SnapshotFile {
  header: SnapshotHeader;
  /** per document, in header order */
  docs: SnapshotDoc[];
  /** the index section's bytes (copied off the file), or null when there is none or it is cut short */
  index: Uint8Array | null;
}

const pad = (n: number) => Math.ceil(n / ALIGN) * ALIGN;

/** The file name of a project's snapshot in a generation's folder (project ids are checked free of path syntax elsewhere, but hex them anyway). */
export function snapshotPath(dir: string, gen: number, projectId: string): string {
  return join(dir, `cache-g${gen}`, `${Buffer.from(projectId).toString("hex")}.vc`);
}

/** Removes a project's snapshot (before a write to it); a missing file is fine. */
export function dropSnapshot(path: string): void {
  try {
    unlinkSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
}

export function dropSnapshotFolder(dir: string, gen: number): void {
  rmSync(join(dir, `cache-g${gen}`), { recursive: true, force: true });
}

/**
 * Writes the blocks to `path` + ".tmp" (the caller renames it into place once
 * it knows no write has landed meanwhile); `snapshotRows` then gives each block's
 * float32 rows in the new file, for the cache to drop its own copies.
 */
export async function writeSnapshotTmp(path: string, meta: Omit<SnapshotHeader, "rows" | "strings" | "docs" | "cols" | "hasFull" | "index" | "columns" | "stamp"> & { stamp?: string }, blocks: DocumentBlock[], extras: SnapshotExtras = { index: null, columns: false }): Promise<string> {
  const { strings, docs, cols, rows, hasFull } = encodeRows(blocks);
  const header: SnapshotHeader = { ...meta, stamp: meta.stamp ?? crypto.randomUUID(), rows, hasFull, strings, docs, cols, ...(extras.index ? { index: extras.index.meta } : {}), ...(extras.columns ? { columns: true } : {}) };
  const json = Buffer.from(JSON.stringify(header));
  mkdirSync(join(path, ".."), { recursive: true });
  const tmp = `${path}.tmp`;
  // written a block at a time without blocking the event loop: the blocks never change once made, so turns
  // may go on searching (and writes replacing blocks) meanwhile
  const fh = await open(tmp, "w");
  try {
    const head = Buffer.alloc(16);
    head.write(MAGIC, 0, "latin1");
    head.writeUInt32LE(json.length, 8);
    const out = new StagedWriter(fh, 0, ALIGN);
    await out.put(head);
    await out.put(json);
    await putRows(out, blocks, meta.dims, hasFull);
    if (extras.index) {
      await out.pad();
      for (const part of extras.index.sections) await out.put(part);
    }
    await out.drain();
  } finally {
    await fh.close();
  }
  return tmp;
}

/** The blocks' codes, scales and (with hasFull) float32 rows, each section starting aligned. */
export async function putRows(out: StagedWriter, blocks: DocumentBlock[], dims: number, hasFull: boolean): Promise<void> {
  await out.pad();
  // a block whose rows a column copy holds alone has its int8 codes made back from the copy (4-bit precision)
  for (const b of blocks) await out.put(blockCodes(b, dims));
  await out.pad();
  for (const b of blocks) await out.put(b.scales);
  await out.pad();
  if (hasFull) for (const b of blocks) await out.put(b.full!.slice(b.fullAt, b.n));
}

/** Where each section of `rows` rows starts, from the first byte after a header ending at `headerEnd`. */
export function rowsLayout(headerEnd: number, rows: number, dims: number, hasFull: boolean): { codesAt: number; scalesAt: number; fullAt: number; end: number } {
  const codesAt = pad(headerEnd);
  const scalesAt = pad(codesAt + rows * dims);
  const fullAt = pad(scalesAt + rows * 4);
  return { codesAt, scalesAt, fullAt, end: hasFull ? fullAt + rows * dims * 4 : scalesAt + rows * 4 };
}

export function commitSnapshot(tmp: string, path: string): void {
  renameSync(tmp, path);
}

interface Opened {
  /** the file, read through one descriptor from here on: a save renaming a newer file over the path changes nothing */
  file: SnapshotReader;
  header: SnapshotHeader;
  codesAt: number;
  scalesAt: number;
  fullAt: number;
  /** where the index section starts (whether or not there is one) */
  indexAt: number;
  size: number;
}

/** Reads `into` whole from `position`; false when the file ends first. */
export function readFully(fd: number, into: Uint8Array, position: number): boolean {
  let done = 0;
  while (done < into.length) {
    const n = readSync(fd, into, done, into.length - done, position + done);
    if (n <= 0) return false;
    done += n;
  }
  return true;
}

/** The file opened and its header read; null when there is none or it is unreadable. Nothing is mapped (fullVectors.ts says why). */
function openSnapshot(path: string): Opened | null {
  if (!existsSync(path)) return null;
  let fd = -1;
  try {
    fd = openSync(path, "r");
    const size = fstatSync(fd).size;
    const head = Buffer.alloc(16);
    if (size < 16 || !readFully(fd, head, 0) || head.toString("latin1", 0, 8) !== MAGIC) throw new Error("not a snapshot");
    const len = head.readUInt32LE(8);
    const json = Buffer.alloc(len);
    if (16 + len > size || !readFully(fd, json, 16)) throw new Error("cut short");
    const header = JSON.parse(json.toString("utf8")) as SnapshotHeader;
    const { dims, rows } = header;
    const { codesAt, scalesAt, fullAt, end } = rowsLayout(16 + len, rows, dims, header.hasFull);
    if (size < end) throw new Error("cut short");
    // from here the reader owns the descriptor (closed once nothing reads from it)
    const file = new SnapshotReader(fd);
    fd = -1;
    return { file, header, codesAt, scalesAt, fullAt, indexAt: pad(end), size };
  } catch {
    if (fd >= 0) closeSync(fd);
    return null; // truncated or garbled: LanceDB has the rows
  }
}

/** Reads a snapshot (the codes and scales into memory, the float32 rows left in the file); null when there is none or it is unreadable. */
export function readSnapshot(path: string): SnapshotFile | null {
  const m = openSnapshot(path);
  if (!m) return null;
  const { header, codesAt, scalesAt } = m;
  const { dims, rows } = header;
  // codes and scales in one read
  const part = Buffer.alloc(scalesAt + rows * 4 - codesAt);
  // the index section likewise; one cut short is left out (the rows still load)
  const wantIndex = header.index && typeof header.index === "object" ? indexBytes(header.index, dims, rows) : 0;
  let index: Uint8Array | null = wantIndex > 0 && Number.isSafeInteger(wantIndex) && m.indexAt + wantIndex <= m.size ? new Uint8Array(wantIndex) : null;
  try {
    if (!readFully(m.file.fd, part, codesAt)) return null;
    if (index && !readFully(m.file.fd, index, m.indexAt)) index = null;
  } catch {
    return null; // LanceDB has the rows
  }
  const codes = new Int8Array(part.buffer, part.byteOffset, rows * dims);
  const scales = new Float32Array(part.buffer, part.byteOffset + scalesAt - codesAt, rows);
  const packedKnown = header.cols ? Array.isArray(header.cols.p) && header.cols.p.length > 0 : Array.isArray(header.docs) && header.docs.some((x) => x?.p === 1);
  const docs = decodeRows(header, codes, scales, header.hasFull ? new FileVectors(m.file, m.fullAt, rows, dims) : null, dims, packedKnown);
  if (!docs) return null;
  return { header, docs, index };
}

/** The float32 rows of a just-written snapshot, block by block, for ProjectVectorCache.adoptSnapshotRows. */
export function snapshotRows(path: string, blocks: DocumentBlock[]): Map<DocumentBlock, RowsAt> {
  const out = new Map<DocumentBlock, RowsAt>();
  const m = openSnapshot(path);
  const counts = m && headerDocCounts(m.header);
  if (!m || !m.header.hasFull || !counts || counts.length !== blocks.length) return out;
  // one reader of the file's rows for all the blocks
  const full = new FileVectors(m.file, m.fullAt, m.header.rows, m.header.dims);
  let at = 0;
  blocks.forEach((b, i) => {
    const n = b.n;
    if (counts[i].d === b.documentId && counts[i].n === n) out.set(b, { full, at });
    at += n;
  });
  return out;
}

/**
 * Fills an empty cache from a snapshot's documents, and its index when the index part beside the file (or, in a
 * file written before parts, its own index section) holds one that checks out; otherwise the cache trains one in
 * the background, as after a load from LanceDB. True when the index came from the part.
 */
export function restoreInto(cache: ProjectVectorCache, file: SnapshotFile, part: IndexPart | null = null): boolean {
  cache.restoring(() => cache.restoreDocuments(file.docs));
  const h = file.header;
  const meta = part ? part.header.index : h.index;
  const bytes = part ? part.bytes : file.index;
  const parts = bytes ? decodeIndex(meta, bytes, cache.blocks(), h.dims) : null;
  cache.restored(parts && { parts, trainedRows: meta!.trainedRows }, h.columns === true || part?.header.columns === true);
  cache.dirty = false;
  return part !== null && parts !== null;
}
