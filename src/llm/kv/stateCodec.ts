import * as zlib from "node:zlib";
import { promisify } from "node:util";

/**
 * How a KV state is kept on disk: zstd, and for a conversation, against its mind's prefix state.
 *
 * A conversation's state holds its mind's static prompt (often half of it or more) byte for byte as
 * the prefix snapshot holds it: llama.cpp writes each layer's K (and, with flash attention, V) rows
 * cell after cell, so the prefix's rows recur as long runs. zstd given the prefix state as a raw
 * dictionary (what `zstd --patch-from` does) stores those runs as references and keeps only the
 * conversation's own tokens: measured on Qwen2.5-0.5B q8_0, a 2,000-token state of which 1,000 were
 * the prefix went from 13.1 MB to 6.2 MB, where zstd alone gave 12.4 MB (KV values are noisy floats).
 *
 * The window must reach back over the whole dictionary, and the match finder's table must be large
 * enough that the dictionary's positions survive in it (with 2^18 entries most runs were missed:
 * 10.4 MB; 2^20 found them all). Level 1 (the fast strategy): higher levels found nothing more.
 * Both directions run on libuv's thread pool, never on the event loop (a 13 MB state: ~0.2–0.5 s).
 */
/** Bun's node:zlib has zstd (with dictionaries); the installed Node type definitions predate it. */
interface ZstdZlib {
  zstdCompress(data: Uint8Array, opts: object, cb: (err: Error | null, out: Buffer) => void): void;
  zstdDecompress(data: Uint8Array, opts: object, cb: (err: Error | null, out: Buffer) => void): void;
  constants: Record<"ZSTD_c_compressionLevel" | "ZSTD_c_windowLog" | "ZSTD_c_hashLog" | "ZSTD_d_windowLogMax", number>;
}
const z = zlib as unknown as ZstdZlib;
const constants = z.constants;
const compress = promisify(z.zstdCompress) as (data: Uint8Array, opts: object) => Promise<Buffer>;
const decompress = promisify(z.zstdDecompress) as (data: Uint8Array, opts: object) => Promise<Buffer>;

/** Largest window zstd allows: states beyond 2 GiB are not snapshotted usefully anyway. */
const MAX_WINDOW_LOG = 31;

export async function packState(raw: Uint8Array, base: Uint8Array | null): Promise<Uint8Array> {
  const span = raw.length + (base?.length ?? 0);
  const windowLog = Math.min(MAX_WINDOW_LOG, Math.max(20, Math.ceil(Math.log2(Math.max(1, span)))));
  const params: Record<number, number> = { [constants.ZSTD_c_compressionLevel]: 1, [constants.ZSTD_c_windowLog]: windowLog };
  if (base) params[constants.ZSTD_c_hashLog] = Math.min(26, Math.max(20, Math.ceil(Math.log2(Math.max(1, base.length))) - 3));
  return compress(raw, base ? { params, dictionary: base } : { params });
}

export async function unpackState(packed: Uint8Array, base: Uint8Array | null): Promise<Uint8Array> {
  const params = { [constants.ZSTD_d_windowLogMax]: MAX_WINDOW_LOG };
  return decompress(packed, base ? { params, dictionary: base } : { params });
}
