/**
 * A tiny ZIP writer for tests. It writes its own headers (fflate only
 * compresses) so that tests can lie: wrong declared sizes, encryption and
 * symlink flags, data descriptors, foreign methods, overlapping entries, zip64.
 */
import { createHash } from "node:crypto";
import { Deflate, deflateSync } from "fflate";

export interface ZipEntrySpec {
  path: string;
  data: Uint8Array | string;
  /** 0 stored, 8 deflate (default). */
  method?: 0 | 8;
  /** Written as the method number instead (the data is stored as-is), e.g. 12 for bzip2. */
  rawMethod?: number;
  /** Sets general-purpose bit 0 (the data is not really encrypted). */
  encrypted?: boolean;
  /** Unix mode S_IFLNK in the external attributes; `data` is the link target. */
  symlink?: boolean;
  /** A lie about the uncompressed size, in both headers. */
  declaredSize?: number;
  /** Sizes and CRC after the data (bit 3), zeros in the local header. */
  dataDescriptor?: boolean;
  /** Already-deflated payload (e.g. from deflateZeros); `data` is then ignored. */
  raw?: RawDeflate;
  /** No data of its own: the central record points at this earlier entry's local header (overlap bomb). */
  pointsAt?: string;
  /** Name written in the local header when it should differ from the central one. */
  localPath?: string;
  /** Overrides the CRC-32 written. */
  crc32?: number;
}

export interface RawDeflate {
  compressed: Uint8Array;
  size: number;
  crc32: number;
}

export interface BuildZipOptions {
  /** Writes zip64 extra fields for every entry and a zip64 end record. */
  zip64?: boolean;
  comment?: string;
}

const enc = new TextEncoder();

export function toBytes(data: Uint8Array | string): Uint8Array {
  return typeof data === "string" ? enc.encode(data) : data;
}

export function sha256Hex(data: Uint8Array | string): string {
  return createHash("sha256").update(toBytes(data)).digest("hex");
}

export function crc32(data: Uint8Array, seed = 0): number {
  return Bun.hash.crc32(data, seed) >>> 0;
}

/** `size` zero bytes deflated in 1 MiB steps, never holding them all: a real bomb kernel. */
export function deflateZeros(size: number): RawDeflate {
  const parts: Uint8Array[] = [];
  const deflate = new Deflate({ level: 1 }, (chunk) => parts.push(chunk));
  const step = new Uint8Array(1024 * 1024);
  let crc = 0;
  for (let done = 0; done < size; ) {
    const n = Math.min(step.length, size - done);
    const piece = step.subarray(0, n);
    crc = crc32(piece, crc);
    done += n;
    deflate.push(piece, done === size);
  }
  if (size === 0) deflate.push(new Uint8Array(0), true);
  return { compressed: concat(parts), size, crc32: crc };
}

interface Written {
  spec: ZipEntrySpec;
  name: Uint8Array;
  flags: number;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  offset: number;
}

export function buildZip(entries: ZipEntrySpec[], options: BuildZipOptions = {}): Uint8Array {
  const out: Uint8Array[] = [];
  let offset = 0;
  const push = (bytes: Uint8Array) => {
    out.push(bytes);
    offset += bytes.length;
  };
  const written: Written[] = [];

  for (const spec of entries) {
    const name = enc.encode(spec.path);
    if (spec.pointsAt) {
      const target = written.find((w) => w.spec.path === spec.pointsAt);
      if (!target) throw new Error(`pointsAt: no earlier entry ${spec.pointsAt}`);
      written.push({ ...target, spec, name });
      continue;
    }
    let payload: Uint8Array;
    let method: number;
    let crc: number;
    let size: number;
    if (spec.raw) {
      payload = spec.raw.compressed;
      method = 8;
      crc = spec.raw.crc32;
      size = spec.raw.size;
    } else {
      const data = toBytes(spec.data);
      method = spec.rawMethod ?? spec.method ?? 8;
      payload = method === 8 && spec.rawMethod === undefined ? deflateSync(data) : data;
      crc = crc32(data);
      size = data.length;
    }
    if (spec.crc32 !== undefined) crc = spec.crc32;
    if (spec.declaredSize !== undefined) size = spec.declaredSize;
    const flags = (spec.encrypted ? 0x1 : 0) | (spec.dataDescriptor ? 0x8 : 0) | 0x800;
    const entry: Written = { spec, name, flags, method, crc, compressedSize: payload.length, size, offset };
    written.push(entry);

    const localName = spec.localPath !== undefined ? enc.encode(spec.localPath) : name;
    const zip64Extra = options.zip64 ? zip64ExtraField([size, payload.length]) : new Uint8Array(0);
    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    local.setUint16(4, options.zip64 ? 45 : 20, true);
    local.setUint16(6, flags, true);
    local.setUint16(8, method, true);
    local.setUint32(10, 0, true); // DOS time+date: 1980-00-00, irrelevant here
    const hideSizes = spec.dataDescriptor;
    local.setUint32(14, hideSizes ? 0 : crc, true);
    local.setUint32(18, hideSizes ? 0 : options.zip64 ? 0xffffffff : payload.length, true);
    local.setUint32(22, hideSizes ? 0 : options.zip64 ? 0xffffffff : size, true);
    local.setUint16(26, localName.length, true);
    local.setUint16(28, zip64Extra.length, true);
    push(new Uint8Array(local.buffer));
    push(localName);
    push(zip64Extra);
    push(payload);
    if (spec.dataDescriptor) {
      const dd = new DataView(new ArrayBuffer(16));
      dd.setUint32(0, 0x08074b50, true);
      dd.setUint32(4, crc, true);
      dd.setUint32(8, payload.length, true);
      dd.setUint32(12, size, true);
      push(new Uint8Array(dd.buffer));
    }
  }

  const cdOffset = offset;
  for (const w of written) {
    const zip64Extra = options.zip64 ? zip64ExtraField([w.size, w.compressedSize, w.offset]) : new Uint8Array(0);
    const mode = w.spec.symlink ? 0o120777 : w.spec.path.endsWith("/") ? 0o040755 : 0o100644;
    const cd = new DataView(new ArrayBuffer(46));
    cd.setUint32(0, 0x02014b50, true);
    cd.setUint16(4, (3 << 8) | 45, true); // made by Unix
    cd.setUint16(6, options.zip64 ? 45 : 20, true);
    cd.setUint16(8, w.flags, true);
    cd.setUint16(10, w.method, true);
    cd.setUint32(16, w.crc, true);
    cd.setUint32(20, options.zip64 ? 0xffffffff : w.compressedSize, true);
    cd.setUint32(24, options.zip64 ? 0xffffffff : w.size, true);
    cd.setUint16(28, w.name.length, true);
    cd.setUint16(30, zip64Extra.length, true);
    cd.setUint32(38, (mode << 16) >>> 0, true);
    cd.setUint32(42, options.zip64 ? 0xffffffff : w.offset, true);
    push(new Uint8Array(cd.buffer));
    push(w.name);
    push(zip64Extra);
  }
  const cdSize = offset - cdOffset;

  if (options.zip64) {
    const zip64EocdOffset = offset;
    const record = new DataView(new ArrayBuffer(56));
    record.setUint32(0, 0x06064b50, true);
    record.setBigUint64(4, 44n, true);
    record.setUint16(12, 45, true);
    record.setUint16(14, 45, true);
    record.setBigUint64(24, BigInt(written.length), true);
    record.setBigUint64(32, BigInt(written.length), true);
    record.setBigUint64(40, BigInt(cdSize), true);
    record.setBigUint64(48, BigInt(cdOffset), true);
    push(new Uint8Array(record.buffer));
    const locator = new DataView(new ArrayBuffer(20));
    locator.setUint32(0, 0x07064b50, true);
    locator.setBigUint64(8, BigInt(zip64EocdOffset), true);
    locator.setUint32(16, 1, true);
    push(new Uint8Array(locator.buffer));
  }

  const comment = enc.encode(options.comment ?? "");
  const eocd = new DataView(new ArrayBuffer(22));
  eocd.setUint32(0, 0x06054b50, true);
  eocd.setUint16(8, options.zip64 ? 0xffff : written.length, true);
  eocd.setUint16(10, options.zip64 ? 0xffff : written.length, true);
  eocd.setUint32(12, options.zip64 ? 0xffffffff : cdSize, true);
  eocd.setUint32(16, options.zip64 ? 0xffffffff : cdOffset, true);
  eocd.setUint16(20, comment.length, true);
  push(new Uint8Array(eocd.buffer));
  push(comment);
  return concat(out);
}

function zip64ExtraField(values: number[]): Uint8Array {
  const view = new DataView(new ArrayBuffer(4 + 8 * values.length));
  view.setUint16(0, 0x0001, true);
  view.setUint16(2, 8 * values.length, true);
  values.forEach((v, i) => view.setBigUint64(4 + 8 * i, BigInt(v), true));
  return new Uint8Array(view.buffer);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
