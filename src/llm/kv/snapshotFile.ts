import { closeSync, openSync, readSync, fstatSync } from "node:fs";
import { readFile, rename, stat, writeFile } from "node:fs/promises";
import { SNAPSHOT_FORMAT } from "./fingerprint.ts";

/**
 * One snapshot is two files side by side: `<id>.state`, the sequence state as llama.cpp writes it
 * (node-llama-cpp's `saveStateToFile`) packed by stateCodec.ts (zstd, a conversation against its
 * mind's prefix state, named by `base`), and `<id>.meta`, our header that vouches for it:
 *
 *   "LHKV" | u32 format | u32 header length | header JSON | u32 × tokenCount (the token list)
 *
 * The header carries the model fingerprint, the conversation key, the token list's, the state
 * file's and the unpacked state's sizes and xxHash64 checksums. A state is only ever handed to llama.cpp after its meta
 * parsed, its fingerprint matched and the state file's size and checksum matched: a truncated,
 * corrupt, foreign or half-written snapshot is refused, never loaded blindly. The meta is written
 * last (then renamed into place), so a crash mid-save leaves a state nobody vouches for.
 */
export type SnapshotKind = "conversation" | "prefix";

export interface SnapshotHeader {
  fingerprint: string;
  kind: SnapshotKind;
  key: string;
  tokenCount: number;
  tokensHash: string;
  stateBytes: number;
  stateHash: string;
  /** The state as llama.cpp wrote it, before packing. */
  rawBytes: number;
  rawHash: string;
  /** The prefix snapshot this state was packed against (its unpacked state is the dictionary); null: none. */
  base: { key: string; rawHash: string } | null;
  savedAt: number;
}

export interface SnapshotMeta extends SnapshotHeader {
  tokens: number[];
}

const MAGIC = "LHKV";
const PREFIX_BYTES = 12;

export function checksum(bytes: Uint8Array): string {
  return Bun.hash.xxHash64(bytes).toString(16);
}

export function encodeMeta(header: Omit<SnapshotHeader, "tokenCount" | "tokensHash">, tokens: readonly number[]): Uint8Array {
  const tokenBytes = new Uint8Array(Uint32Array.from(tokens).buffer);
  const full: SnapshotHeader = { ...header, tokenCount: tokens.length, tokensHash: checksum(tokenBytes) };
  const json = new TextEncoder().encode(JSON.stringify(full));
  const out = new Uint8Array(PREFIX_BYTES + json.length + tokenBytes.length);
  out.set(new TextEncoder().encode(MAGIC), 0);
  const view = new DataView(out.buffer);
  view.setUint32(4, SNAPSHOT_FORMAT, true);
  view.setUint32(8, json.length, true);
  out.set(json, PREFIX_BYTES);
  out.set(tokenBytes, PREFIX_BYTES + json.length);
  return out;
}

/** The header alone (no token list): what erasing and the budget need. Null when unreadable. */
export function readHeader(metaPath: string): SnapshotHeader | null {
  let fd: number | null = null;
  try {
    fd = openSync(metaPath, "r");
    const size = fstatSync(fd).size;
    const prefix = Buffer.alloc(PREFIX_BYTES);
    if (readSync(fd, prefix, 0, PREFIX_BYTES, 0) !== PREFIX_BYTES) return null;
    const parsed = parsePrefix(prefix, size);
    if (!parsed) return null;
    const json = Buffer.alloc(parsed.jsonLength);
    if (readSync(fd, json, 0, json.length, PREFIX_BYTES) !== json.length) return null;
    const header = parseHeader(json);
    if (!header || size !== PREFIX_BYTES + parsed.jsonLength + header.tokenCount * 4) return null;
    return header;
  } catch {
    return null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** Header and token list, checked against each other. Null when anything is off. */
export async function readMeta(metaPath: string): Promise<SnapshotMeta | null> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(metaPath);
  } catch {
    return null;
  }
  const parsed = parsePrefix(bytes, bytes.length);
  if (!parsed) return null;
  const header = parseHeader(bytes.subarray(PREFIX_BYTES, PREFIX_BYTES + parsed.jsonLength));
  if (!header) return null;
  const start = PREFIX_BYTES + parsed.jsonLength;
  if (bytes.length !== start + header.tokenCount * 4) return null;
  // a copy: the token section need not be 4-byte aligned within the file's buffer
  const tokenBytes = Uint8Array.from(bytes.subarray(start));
  if (checksum(tokenBytes) !== header.tokensHash) return null;
  return { ...header, tokens: Array.from(new Uint32Array(tokenBytes.buffer, tokenBytes.byteOffset, header.tokenCount)) };
}

/** True when the state file is exactly what the meta vouches for (size and checksum). */
export async function stateMatches(statePath: string, header: SnapshotHeader): Promise<boolean> {
  try {
    if ((await stat(statePath)).size !== header.stateBytes) return false;
    return checksum(await readFile(statePath)) === header.stateHash;
  } catch {
    return false;
  }
}

/** Writes the meta for a state file already in place: checksums it, writes to a temp name, renames. */
export async function writeMeta(
  metaPath: string,
  statePath: string,
  header: Omit<SnapshotHeader, "tokenCount" | "tokensHash" | "stateBytes" | "stateHash">,
  tokens: readonly number[],
): Promise<SnapshotMeta> {
  const state = await readFile(statePath);
  const full = { ...header, stateBytes: state.length, stateHash: checksum(state) };
  const encoded = encodeMeta(full, tokens);
  const tmp = `${metaPath}.tmp`;
  await writeFile(tmp, encoded);
  await rename(tmp, metaPath);
  return { ...full, tokenCount: tokens.length, tokensHash: "", tokens: [...tokens] };
}

function parsePrefix(prefix: Uint8Array, size: number): { jsonLength: number } | null {
  if (size < PREFIX_BYTES) return null;
  if (new TextDecoder().decode(prefix.subarray(0, 4)) !== MAGIC) return null;
  const view = new DataView(prefix.buffer, prefix.byteOffset, PREFIX_BYTES);
  if (view.getUint32(4, true) !== SNAPSHOT_FORMAT) return null;
  const jsonLength = view.getUint32(8, true);
  if (jsonLength === 0 || PREFIX_BYTES + jsonLength > size) return null;
  return { jsonLength };
}

function parseHeader(json: Uint8Array): SnapshotHeader | null {
  try {
    const h = JSON.parse(new TextDecoder().decode(json)) as Partial<SnapshotHeader>;
    const ok =
      typeof h.fingerprint === "string" &&
      (h.kind === "conversation" || h.kind === "prefix") &&
      typeof h.key === "string" &&
      Number.isInteger(h.tokenCount) &&
      h.tokenCount! >= 0 &&
      typeof h.tokensHash === "string" &&
      Number.isInteger(h.stateBytes) &&
      typeof h.stateHash === "string" &&
      Number.isInteger(h.rawBytes) &&
      typeof h.rawHash === "string" &&
      (h.base === null || (typeof h.base === "object" && typeof h.base?.key === "string" && typeof h.base?.rawHash === "string")) &&
      typeof h.savedAt === "number";
    return ok ? (h as SnapshotHeader) : null;
  } catch {
    return null;
  }
}
