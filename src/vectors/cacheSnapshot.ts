import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readSync, renameSync, rmSync, statSync, unlinkSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import type { DocumentBlock } from "./cacheBlocks.ts";
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
  docs: { d: string; ids: string[]; name: number[]; loc: number[]; ci: number[]; tags: number[][] }[];
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
  docs: { documentId: string; meta: RowMeta; codes: Int8Array; scales: Float32Array; full: Float32Array | null }[];
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
 * it knows no write has landed meanwhile). Returns each block's float32 view
 * on the mapped new file, for the cache to drop its own copies.
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
  const docs = blocks.map((b) => {
    rows += b.scales.length;
    return {
      d: b.documentId,
      ids: b.ids,
      name: b.documentName.map(str),
      loc: b.locationId.map((l) => (l === null ? -1 : str(l))),
      ci: Array.from(b.chunkIndex),
      tags: b.tags.map((t) => t.map(str)),
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
    for (const b of blocks) await put(b.codes);
    await align();
    for (const b of blocks) await put(b.scales);
    await align();
    if (hasFull) for (const b of blocks) await put(b.full!);
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

interface Mapped {
  map: Uint8Array;
  /** the mapped file's inode: a read of the same path must find the same file (a save renames over it) */
  ino: number;
  header: SnapshotHeader;
  codesAt: number;
  scalesAt: number;
  fullAt: number;
  /** where the index section starts (whether or not there is one) */
  indexAt: number;
}

/** One map of the whole file and its header; null when there is none or it is unreadable. */
function mapSnapshot(path: string): Mapped | null {
  if (!existsSync(path)) return null;
  try {
    const ino = statSync(path).ino;
    const map = Bun.mmap(path, { shared: false });
    if (statSync(path).ino !== ino) return null;
    if (map.byteLength < 16 || Buffer.from(map.buffer, map.byteOffset, 8).toString("latin1") !== MAGIC) return null;
    const len = new DataView(map.buffer, map.byteOffset + 8, 4).getUint32(0, true);
    const header = JSON.parse(new TextDecoder().decode(map.subarray(16, 16 + len))) as SnapshotHeader;
    const { dims, rows } = header;
    const codesAt = pad(16 + len);
    const scalesAt = pad(codesAt + rows * dims);
    const fullAt = pad(scalesAt + rows * 4);
    const end = header.hasFull ? fullAt + rows * dims * 4 : scalesAt + rows * 4;
    if (map.byteLength < end) return null;
    return { map, ino, header, codesAt, scalesAt, fullAt, indexAt: pad(end) };
  } catch {
    return null; // truncated or garbled: LanceDB has the rows
  }
}

function fullViews(m: Mapped): Float32Array | null {
  return m.header.hasFull ? new Float32Array(m.map.buffer, m.map.byteOffset + m.fullAt, m.header.rows * m.header.dims) : null;
}

/** Reads a snapshot (the codes and scales copied into memory, the float32 part left mapped); null when there is none or it is unreadable. */
export function readSnapshot(path: string): SnapshotFile | null {
  const m = mapSnapshot(path);
  if (!m) return null;
  const { header, codesAt, scalesAt } = m;
  const { dims, rows } = header;
  // codes and scales in one read into the heap, not copied out of the map: pages copied from a mapping stay
  // resident in it (and in the RSS) for as long as the float32 views keep the mapping alive
  const part = Buffer.alloc(scalesAt + rows * 4 - codesAt);
  // the index section likewise read, not mapped; one cut short is left out (the rows still load)
  const wantIndex = header.index && typeof header.index === "object" ? indexBytes(header.index, dims, rows) : 0;
  let index: Uint8Array | null = wantIndex > 0 && Number.isSafeInteger(wantIndex) && m.indexAt + wantIndex <= m.map.byteLength ? new Uint8Array(wantIndex) : null;
  try {
    const fd = openSync(path, "r");
    try {
      if (fstatSync(fd).ino !== m.ino || readSync(fd, part, 0, part.length, codesAt) !== part.length) return null;
      if (index && readSync(fd, index, 0, index.length, m.indexAt) !== index.length) index = null;
    } finally {
      closeSync(fd);
    }
  } catch {
    return null; // deleted by a write since it was mapped: LanceDB has the rows
  }
  const codes = new Int8Array(part.buffer, part.byteOffset, rows * dims);
  const scales = new Float32Array(part.buffer, part.byteOffset + scalesAt - codesAt, rows);
  const full = fullViews(m);
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
      scales: scales.subarray(at, at + n),
      full: full ? full.subarray(at * dims, (at + n) * dims) : null,
    };
  });
  return r === rows ? { header, docs, index } : null;
}

/** The float32 views of a just-written snapshot, block by block, for ProjectVectorCache.adoptMapped. */
export function mappedViews(path: string, blocks: DocumentBlock[]): Map<DocumentBlock, Float32Array> {
  const out = new Map<DocumentBlock, Float32Array>();
  const m = mapSnapshot(path);
  const full = m && fullViews(m);
  if (!m || !full || m.header.docs.length !== blocks.length) return out;
  const dims = m.header.dims;
  let at = 0;
  blocks.forEach((b, i) => {
    const n = b.scales.length;
    if (m.header.docs[i].d === b.documentId && m.header.docs[i].ids.length === n) out.set(b, full.subarray(at * dims, (at + n) * dims));
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
    for (const d of file.docs) cache.restoreDocument(d.documentId, d.meta, d.codes, d.scales, d.full);
  });
  const h = file.header;
  const meta = part ? part.header.index : h.index;
  const bytes = part ? part.bytes : file.index;
  const parts = bytes ? decodeIndex(meta, bytes, cache.blocks(), h.dims) : null;
  cache.restored(parts && { parts, trainedRows: meta!.trainedRows }, h.columns === true || part?.header.columns === true);
  cache.dirty = false;
  return part !== null && parts !== null;
}
