import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { createHash } from "node:crypto";

/** Bumped when the snapshot layout (ours or what we ask llama.cpp to write) changes. */
export const SNAPSHOT_FORMAT = 2;

export interface FingerprintInput {
  modelPath: string;
  contextSize: number;
  /** KV cache key/value types (ggml type names or numbers as node-llama-cpp reports them). */
  kvKeyType: string;
  kvValueType: string;
  /** Flash attention changes the V cache layout in the state. */
  flashAttention: boolean;
  /** node-llama-cpp's version: the native state format travels with its llama.cpp build. */
  runtimeVersion: string;
}

const HEAD_BYTES = 1 << 20;
const SAMPLE_BYTES = 64 << 10;
const SAMPLES = 8;

/**
 * Which KV states may be loaded into this context: a state is only valid for the exact model
 * weights, context size, KV types and layout it was made with (loading another model's state can
 * crash the process). Hashing a multi-GB file at every start is too slow, so the model is named by
 * its size, its first MiB (the GGUF header: architecture, shapes, tokenizer, tensor table) and
 * eight 64 KiB samples spread over the weights (two random-weight files of one shape differ there).
 * 16 hex characters: a directory name under data/kv.
 */
export function modelFingerprint(input: FingerprintInput): string {
  const hash = createHash("sha256");
  const fd = openSync(input.modelPath, "r");
  try {
    const size = fstatSync(fd).size;
    hash.update(`lorehold-kv:${SNAPSHOT_FORMAT}|size:${size}|`);
    const head = Buffer.alloc(Math.min(HEAD_BYTES, size));
    readSync(fd, head, 0, head.length, 0);
    hash.update(head);
    const sample = Buffer.alloc(SAMPLE_BYTES);
    for (let i = 1; i <= SAMPLES && size > HEAD_BYTES; i++) {
      const at = Math.max(0, Math.floor(((size - SAMPLE_BYTES) * i) / SAMPLES));
      const n = readSync(fd, sample, 0, SAMPLE_BYTES, at);
      hash.update(sample.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
  hash.update(`|ctx:${input.contextSize}|k:${input.kvKeyType}|v:${input.kvValueType}|fa:${input.flashAttention}|rt:${input.runtimeVersion}`);
  return hash.digest("hex").slice(0, 16);
}
