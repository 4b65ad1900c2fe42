import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readSync, renameSync, rmSync, unlinkSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { blockCodes, rowChunkIndex, rowCount, rowId, rowLocation, rowName, rowTags, type DocumentBlock } from "./cacheBlocks.ts";
import { FileVectors, SnapshotReader, type FullVectors } from "./fullVectors.ts";
import type { ProjectVectorCache, RowMeta } from "./ProjectVectorCache.ts";
import { decodeIndex, indexBytes, type EncodedIndex, type IndexMeta } from "./ivfSnapshot.ts";
import type { IndexPart } from "./indexPart.ts";

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
const STAGE_BYTES = 8 * 1024 * 1024;

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
  /** p: 1 when the cache kept the document's rows in 4 bits (its int8 codes here are those, made back) */
  docs: { d: string; ids: string[]; name: number[]; loc: number[]; ci: number[]; tags: number[][]; p?: 1 }[];
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

export interface SnapshotFile {
  header: SnapshotHeader;
  /** per document, in header order: its meta and its slices of the file */
  docs: { documentId: string; meta: RowMeta; codes: Int8Array; scales: Float32Array; full: FullVectors | null; packed?: boolean }[];
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
  // the header keeps its per-row layout, whatever the cache keeps per block: files of either side load in the other
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
    // staged into 8 MB writes: a write per block (thousands at 100k chunks) would wait behind every slice of an
    // index build running meanwhile, and the save would take tens of seconds instead of a fraction of one
    const stage = new Uint8Array(STAGE_BYTES);
    let staged = 0;
    let at = 0;
    const drain = async () => {
      if (staged) await fh.write(stage, 0, staged, at - staged);
      staged = 0;
    };
    const put = async (buf: ArrayBufferView) => {
      let bytes = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
      while (bytes.byteLength) {
        const n = Math.min(bytes.byteLength, STAGE_BYTES - staged);
        stage.set(bytes.subarray(0, n), staged);
        staged += n;
        at += n;
        bytes = bytes.subarray(n);
        if (staged === STAGE_BYTES) await drain();
      }
    };
    const align = async () => {
      if (at % ALIGN) await put(new Uint8Array(ALIGN - (at % ALIGN)));
    };
    await put(head);
    await put(json);
    await align();
    // a block whose rows a column copy holds alone has its int8 codes made back from the copy (4-bit precision)
    for (const b of blocks) await put(blockCodes(b, meta.dims));
    await align();
    for (const b of blocks) await put(b.scales);
    await align();
    if (hasFull) for (const b of blocks) await put(b.full!.all());
    if (extras.index) {
      await align();
      for (const part of extras.index.sections) await put(part);
    }
    await drain();
  } finally {
    await fh.close();
  }
  return tmp;
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
function readFully(fd: number, into: Uint8Array, position: number): boolean {
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
    const codesAt = pad(16 + len);
    const scalesAt = pad(codesAt + rows * dims);
    const fullAt = pad(scalesAt + rows * 4);
    const end = header.hasFull ? fullAt + rows * dims * 4 : scalesAt + rows * 4;
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
  let r = 0;
  const s = header.strings;
  const docs = header.docs.map((d) => {
    const n = d.ids.length;
    const at = r;
    r += n;
    return {
      documentId: d.d,
      meta: { ids: d.ids, documentName: d.name.map((i) => s[i]), locationId: d.loc.map((i) => (i < 0 ? null : s[i])), chunkIndex: Int32Array.from(d.ci), tags: d.tags.map((t) => t.map((i) => s[i])) },
      codes: codes.subarray(at * dims, (at + n) * dims),
      // its own copy: a view would keep the file's codes alive after a column copy has taken them over
      scales: scales.slice(at, at + n),
      full: header.hasFull ? new FileVectors(m.file, m.fullAt + at * dims * 4, n, dims) : null,
      // files written before 4-bit rows say nothing: the cache decides from the codes, as for rows from LanceDB
      ...(d.p === 1 ? { packed: true } : header.docs.some((x) => x.p === 1) ? { packed: false } : {}),
    };
  });
  return r === rows ? { header, docs, index } : null;
}

/** The float32 rows of a just-written snapshot, block by block, for ProjectVectorCache.adoptSnapshotRows. */
export function snapshotRows(path: string, blocks: DocumentBlock[]): Map<DocumentBlock, FullVectors> {
  const out = new Map<DocumentBlock, FullVectors>();
  const m = openSnapshot(path);
  if (!m || !m.header.hasFull || m.header.docs.length !== blocks.length) return out;
  const dims = m.header.dims;
  let at = 0;
  blocks.forEach((b, i) => {
    const n = b.scales.length;
    if (m.header.docs[i].d === b.documentId && m.header.docs[i].ids.length === n) out.set(b, new FileVectors(m.file, m.fullAt + at * dims * 4, n, dims));
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
  cache.restoring(() => {
    for (const d of file.docs) cache.restoreDocument(d.documentId, d.meta, d.codes, d.scales, d.full, d.packed);
  });
  const h = file.header;
  const meta = part ? part.header.index : h.index;
  const bytes = part ? part.bytes : file.index;
  const parts = bytes ? decodeIndex(meta, bytes, cache.blocks(), h.dims) : null;
  cache.restored(parts && { parts, trainedRows: meta!.trainedRows }, h.columns === true || part?.header.columns === true);
  cache.dirty = false;
  return part !== null && parts !== null;
}
