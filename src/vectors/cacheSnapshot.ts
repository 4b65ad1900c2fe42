import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readSync, renameSync, rmSync, unlinkSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { blockCodes, rowChunkIndex, rowCount, rowId, rowLocation, rowName, rowTags, type DocumentBlock } from "./cacheBlocks.ts";
import { FileVectors, SnapshotReader, type FullVectors, type RowsAt } from "./fullVectors.ts";
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

/** A document's rows apart from their vectors, as a header lists them (strings as numbers in its string table). */
export interface HeaderDoc {
  d: string;
  ids: string[];
  name: number[];
  loc: number[];
  ci: number[];
  tags: number[][];
  /** 1 when the cache kept the document's rows in 4 bits (its int8 codes in the file are those, made back) */
  p?: 1;
}

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
  docs: HeaderDoc[];
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

/** The rows of one file (a rows' file, or a segment of its tail): their codes and scales in memory, float32 rows in the file. */
export interface FileRows {
  /** the header's string table */
  strings: string[];
  codes: Int8Array;
  scales: Float32Array;
  /** every row's float32 vector, in the file (null: the file has none) */
  full: FullVectors | null;
  dims: number;
}

/** A document of a file: its header entry, and its rows, rows `at` … `at + n` of the file's. */
export interface SnapshotDoc {
  documentId: string;
  head: HeaderDoc;
  src: FileRows;
  at: number;
  n: number;
  /** what the file says of its rows being 4-bit (nothing in files written before 4-bit rows) */
  packed?: boolean;
}

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
export async function writeSnapshotTmp(path: string, meta: Omit<SnapshotHeader, "rows" | "strings" | "docs" | "hasFull" | "index" | "columns" | "stamp"> & { stamp?: string }, blocks: DocumentBlock[], extras: SnapshotExtras = { index: null, columns: false }): Promise<string> {
  const { strings, docs, rows, hasFull } = docsHeader(blocks);
  const header: SnapshotHeader = { ...meta, stamp: meta.stamp ?? crypto.randomUUID(), rows, hasFull, strings, docs, ...(extras.index ? { index: extras.index.meta } : {}), ...(extras.columns ? { columns: true } : {}) };
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

/**
 * The rows' header fields of these blocks: strings shared in one table, and per document its rows apart from their
 * vectors (kept per row, whatever the cache keeps per block: files of either side load in the other).
 */
export function docsHeader(blocks: DocumentBlock[]): { strings: string[]; docs: HeaderDoc[]; rows: number; hasFull: boolean } {
  const strings: string[] = [];
  const index = new Map<string, number>();
  const str = (s: string) => {
    let i = index.get(s);
    if (i === undefined) {
      i = strings.length;
      strings.push(s);
      index.set(s, i);
    }
    return i;
  };
  const hasFull = blocks.length > 0 && blocks.every((b) => b.full !== null);
  let rows = 0;
  const docs = blocks.map((b) => {
    const n = rowCount(b);
    rows += n;
    const each = <T>(f: (r: number) => T) => Array.from({ length: n }, (_, r) => f(r));
    return {
      d: b.documentId,
      ids: each((r) => rowId(b, r)),
      name: each((r) => str(rowName(b, r))),
      loc: each((r) => {
        const l = rowLocation(b, r);
        return l === null ? -1 : str(l);
      }),
      ci: each((r) => rowChunkIndex(b, r)),
      tags: each((r) => rowTags(b, r).map(str)),
      ...(b.packed ? { p: 1 as const } : {}),
    };
  });
  return { strings, docs, rows, hasFull };
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
  const packedKnown = Array.isArray(header.docs) && header.docs.some((x) => x.p === 1);
  const src: FileRows = { strings: header.strings, codes, scales, full: header.hasFull ? new FileVectors(m.file, m.fullAt, rows, dims) : null, dims };
  const docs = decodeDocs(header.docs, src, packedKnown);
  if (!docs) return null;
  return { header, docs, index };
}

/**
 * A header's documents over a file's rows; null when the header lists another number of rows than the sections
 * hold, or a document is malformed. `packedKnown`: the file says which documents were 4-bit (files written before
 * 4-bit rows say nothing: the cache then decides from the codes, as for rows from LanceDB).
 */
export function decodeDocs(headerDocs: HeaderDoc[], src: FileRows, packedKnown: boolean): SnapshotDoc[] | null {
  if (!Array.isArray(headerDocs) || !Array.isArray(src.strings)) return null;
  const nStrings = src.strings.length;
  const known = (i: number) => Number.isInteger(i) && i < nStrings;
  let r = 0;
  const docs: SnapshotDoc[] = [];
  for (const d of headerDocs) {
    const n = Array.isArray(d.ids) ? d.ids.length : -1;
    // the columns are read row by row at restore: every field a row's, every string number in the table
    if (n < 0 || typeof d.d !== "string" || !Array.isArray(d.name) || !Array.isArray(d.loc) || !Array.isArray(d.ci) || !Array.isArray(d.tags)) return null;
    if (d.name.length !== n || d.loc.length !== n || d.ci.length !== n || d.tags.length !== n) return null;
    for (let i = 0; i < n; i++) {
      if (typeof d.ids[i] !== "string" || !(known(d.name[i]) && d.name[i] >= 0) || !(known(d.loc[i]) && d.loc[i] >= -1) || !Number.isInteger(d.ci[i]) || !Array.isArray(d.tags[i])) return null;
      for (const t of d.tags[i]) if (!(known(t) && t >= 0)) return null;
    }
    docs.push({ documentId: d.d, head: d, src, at: r, n, ...(d.p === 1 ? { packed: true } : packedKnown ? { packed: false } : {}) });
    r += n;
  }
  return r === src.scales.length && src.codes.length === r * src.dims ? docs : null;
}

/** The float32 rows of a just-written snapshot, block by block, for ProjectVectorCache.adoptSnapshotRows. */
export function snapshotRows(path: string, blocks: DocumentBlock[]): Map<DocumentBlock, RowsAt> {
  const out = new Map<DocumentBlock, RowsAt>();
  const m = openSnapshot(path);
  if (!m || !m.header.hasFull || m.header.docs.length !== blocks.length) return out;
  // one reader of the file's rows for all the blocks
  const full = new FileVectors(m.file, m.fullAt, m.header.rows, m.header.dims);
  let at = 0;
  blocks.forEach((b, i) => {
    const n = b.n;
    if (m.header.docs[i].d === b.documentId && m.header.docs[i].ids.length === n) out.set(b, { full, at });
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
