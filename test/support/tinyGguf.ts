// Writes a small random-weight GGUF v3 `llama` model so that the model tier of the
// test suite (and the benchmarks) can run real llama.cpp with no downloaded weights.
// Format: https://github.com/ggml-org/ggml/blob/master/docs/gguf.md
import { closeSync, existsSync, mkdirSync, openSync, renameSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { prng } from "./prng.ts";

/** A ggml type written for a matrix. */
export type TinyGgufTensorType = "f32" | "f16" | "q8_0" | "q5_0" | "q4_0" | "q4_k" | "q6_k";
/**
 * The matrices' type: one ggml type for all of them, or `q4_k_m`, the per-tensor mix llama.cpp's
 * `llama-quantize … Q4_K_M` writes (the file studios most often download), including its
 * fallbacks for rows that are not a multiple of 256 (on a Qwen2.5-0.5B shape most tensors).
 */
export type TinyGgufWeightType = TinyGgufTensorType | "q4_k_m";

export interface TinyGgufOptions {
  nEmbd: number;
  nLayers: number;
  nHeads: number;
  nHeadsKv: number;
  nFf: number;
  nCtx: number;
  /** Word pieces added to the vocab (each also gets its prefixes so SPM can merge up to it). */
  extraWords: string[];
  /** Pad the vocab with synthetic pieces up to this many tokens (0 = no padding). */
  vocabSize: number;
  /** Type of the 2-D weight matrices; norms are always F32. */
  weightType: TinyGgufWeightType;
  seed: number;
  name: string;
  chatTemplate: string;
  /** The BOS token (1 is `<s>`; 3 is `<|im_start|>`, as in SmolLM2's GGUF). */
  bosTokenId: number;
  /** `tokenizer.ggml.add_bos_token`: whether the tokenizer opens a text with BOS. */
  addBosToken: boolean;
}

export const CHATML_TEMPLATE =
  "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}" +
  "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

const DEFAULTS: TinyGgufOptions = {
  nEmbd: 64,
  nLayers: 2,
  nHeads: 4,
  nHeadsKv: 4,
  nFf: 128,
  nCtx: 512,
  extraWords: [],
  vocabSize: 0,
  weightType: "f32",
  seed: 42,
  name: "tiny-llama-test",
  chatTemplate: CHATML_TEMPLATE,
  bosTokenId: 1,
  addBosToken: true,
};

const BASE_WORDS = (
  "the a an and to of in is you that it he she was for on are as with his her they we at be this have from or " +
  "one had by word but not what all were when your can said there use each which do how their if will up other " +
  "about out many then them these so some would make like him into time has look two more go see no way could " +
  "people my than first been call who its now find long down day did get come made may part hello traveler " +
  "welcome friend sword dragon king queen village gold quest tavern ale road north south east west night old " +
  "guard merchant blacksmith forest river castle magic spell I yes"
).split(" ");

// GGUF metadata value types
const T_UINT32 = 4, T_INT32 = 5, T_FLOAT32 = 6, T_BOOL = 7, T_STRING = 8, T_ARRAY = 9;
// ggml tensor types
const GGML_TYPE: Record<TinyGgufTensorType, number> = { f32: 0, f16: 1, q4_0: 2, q5_0: 6, q8_0: 8, q4_k: 12, q6_k: 14 };
/** llama_ftype written as general.file_type (informational). */
const FILE_TYPE: Record<TinyGgufWeightType, number> = { f32: 0, f16: 1, q4_0: 2, q8_0: 7, q5_0: 8, q4_k: 14, q6_k: 18, q4_k_m: 15 };
const ALIGNMENT = 32;

type TokenType = 1 | 2 | 3 | 6; // normal, unknown, control, byte

/** Little-endian byte builder for the (small) header part of the file. */
class ByteWriter {
  private buf = Buffer.alloc(1 << 16);
  length = 0;
  private ensure(n: number) {
    if (this.length + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.length + n) size *= 2;
    const next = Buffer.alloc(size);
    this.buf.copy(next, 0, 0, this.length);
    this.buf = next;
  }
  u32(v: number) { this.ensure(4); this.buf.writeUInt32LE(v, this.length); this.length += 4; }
  i32(v: number) { this.ensure(4); this.buf.writeInt32LE(v, this.length); this.length += 4; }
  u64(v: number) { this.ensure(8); this.buf.writeBigUInt64LE(BigInt(v), this.length); this.length += 8; }
  f32(v: number) { this.ensure(4); this.buf.writeFloatLE(v, this.length); this.length += 4; }
  u8(v: number) { this.ensure(1); this.buf[this.length++] = v; }
  str(s: string) {
    const bytes = Buffer.from(s, "utf8");
    this.u64(bytes.length);
    this.ensure(bytes.length);
    bytes.copy(this.buf, this.length);
    this.length += bytes.length;
  }
  pad(alignment: number) { while (this.length % alignment !== 0) this.u8(0); }
  bytes(): Buffer { return this.buf.subarray(0, this.length); }
}

type MetaValue =
  | { t: "u32"; v: number } | { t: "f32"; v: number } | { t: "bool"; v: boolean } | { t: "str"; v: string }
  | { t: "str[]"; v: string[] } | { t: "f32[]"; v: number[] } | { t: "i32[]"; v: number[] };

function writeMeta(w: ByteWriter, key: string, m: MetaValue) {
  w.str(key);
  switch (m.t) {
    case "u32": w.u32(T_UINT32); w.u32(m.v); break;
    case "f32": w.u32(T_FLOAT32); w.f32(m.v); break;
    case "bool": w.u32(T_BOOL); w.u8(m.v ? 1 : 0); break;
    case "str": w.u32(T_STRING); w.str(m.v); break;
    case "str[]": w.u32(T_ARRAY); w.u32(T_STRING); w.u64(m.v.length); for (const s of m.v) w.str(s); break;
    case "f32[]": w.u32(T_ARRAY); w.u32(T_FLOAT32); w.u64(m.v.length); for (const x of m.v) w.f32(x); break;
    case "i32[]": w.u32(T_ARRAY); w.u32(T_INT32); w.u64(m.v.length); for (const x of m.v) w.i32(x); break;
  }
}

/** Byte-fallback SentencePiece vocab: specials, 256 byte tokens, characters, words and their prefixes. */
export function buildTinyVocab(extraWords: string[] = [], vocabSize = 0) {
  const tokens: string[] = [];
  const types: TokenType[] = [];
  const seen = new Set<string>();
  const add = (text: string, type: TokenType) => {
    if (seen.has(text)) return;
    seen.add(text);
    tokens.push(text);
    types.push(type);
  };
  add("<unk>", 2);
  add("<s>", 3);
  add("</s>", 3);
  add("<|im_start|>", 3);
  add("<|im_end|>", 3);
  for (let b = 0; b < 256; b++) add(`<0x${b.toString(16).toUpperCase().padStart(2, "0")}>`, 6);
  add("▁", 1);
  for (let c = 33; c < 127; c++) add(String.fromCharCode(c), 1);
  const addWord = (word: string) => {
    const piece = "▁" + word;
    for (let i = 2; i <= piece.length; i++) add(piece.slice(0, i), 1);
  };
  for (const w of BASE_WORDS) addWord(w);
  for (const w of extraWords) addWord(w);
  // Synthetic pieces to reach a realistic vocab size (for benchmarks): "▁xy", "▁xyz", "xy"...
  const letters = "abcdefghijklmnopqrstuvwxyz";
  outer: for (const prefix of ["▁", ""]) {
    for (const a of letters) for (const b of letters) {
      if (tokens.length >= vocabSize) break outer;
      add(prefix + a + b, 1);
    }
  }
  outer2: for (const a of letters) for (const b of letters) for (const c of letters) {
    if (tokens.length >= vocabSize) break outer2;
    add("▁" + a + b, 1);
    add("▁" + a + b + c, 1);
  }
  // SPM merges by score: prefer longer pieces, then earlier ones.
  const scores = tokens.map((t, i) => (types[i] === 1 ? t.length * 1000 - i * 0.001 : 0));
  return { tokens, types, scores };
}


function f32ToF16(val: number): number {
  const f = new Float32Array([val]);
  const x = new Uint32Array(f.buffer)[0];
  const sign = (x >>> 16) & 0x8000;
  const exp = ((x >>> 23) & 0xff) - 127 + 15;
  const mant = x & 0x7fffff;
  if (exp <= 0) return sign; // flush tiny values to zero
  if (exp >= 31) return sign | 0x7c00;
  return sign | (exp << 10) | (mant >>> 13);
}

interface TensorSpec { name: string; dims: number[]; kind: "norm" | "matrix" }

/**
 * Block layout of each quantized type (ggml-common.h): weights per block, bytes per block, and
 * where its f16 scales sit; every other byte (quants, packed sub-block scales) may hold any value.
 * `scale` sets the f16 scale from the wanted amplitude so random weights stay about that size.
 */
const BLOCKS: Record<Exclude<TinyGgufTensorType, "f32" | "f16">, { weights: number; bytes: number; halves: [offset: number, scale: number][] }> = {
  q8_0: { weights: 32, bytes: 34, halves: [[0, 1 / 127]] },
  q5_0: { weights: 32, bytes: 22, halves: [[0, 1 / 16]] },
  q4_0: { weights: 32, bytes: 18, halves: [[0, 1 / 8]] },
  // d, dmin, then 12 bytes of 6-bit sub-block scales and mins, then 128 bytes of 4-bit quants
  q4_k: { weights: 256, bytes: 144, halves: [[0, 1 / 472], [2, 7.5 / 472]] },
  // 128 + 64 bytes of 6-bit quants, 16 int8 sub-block scales, then d
  q6_k: { weights: 256, bytes: 210, halves: [[208, 1 / 2048]] },
};

function bytesFor(type: TinyGgufTensorType, n: number): number {
  if (type === "f32") return n * 4;
  if (type === "f16") return n * 2;
  return (n / BLOCKS[type].weights) * BLOCKS[type].bytes;
}

/** Fills `out` with `n` random weights of the given type (uniform, std ≈ `std`). */
function fillWeights(out: Buffer, type: TinyGgufTensorType, n: number, std: number, rnd: () => number) {
  const amp = std * Math.sqrt(3);
  switch (type) {
    case "f32": {
      const f = new Float32Array(out.buffer, out.byteOffset, n);
      for (let i = 0; i < n; i++) f[i] = (rnd() * 2 - 1) * amp;
      return;
    }
    case "f16": {
      // A table of half-floats indexed by random bytes is fast and plenty random for a test model.
      const table = new Uint16Array(256);
      for (let i = 0; i < 256; i++) table[i] = f32ToF16(((i + 0.5) / 128 - 1) * amp);
      const h = new Uint16Array(out.buffer, out.byteOffset, n);
      for (let i = 0; i < n; i += 4) {
        const r = (rnd() * 4294967296) >>> 0;
        h[i] = table[r & 0xff]; h[i + 1] = table[(r >>> 8) & 0xff];
        h[i + 2] = table[(r >>> 16) & 0xff]; h[i + 3] = table[r >>> 24];
      }
      return;
    }
    default: {
      const layout = BLOCKS[type];
      const bytes = (n / layout.weights) * layout.bytes;
      const words = new Uint32Array(out.buffer, out.byteOffset, Math.floor(bytes / 4));
      for (let i = 0; i < words.length; i++) words[i] = (rnd() * 4294967296) >>> 0;
      for (let i = words.length * 4; i < bytes; i++) out[i] = (rnd() * 256) | 0;
      const halves = layout.halves.map(([offset, scale]) => [offset, f32ToF16(amp * scale)] as const);
      for (let o = 0; o < bytes; o += layout.bytes) {
        for (const [offset, half] of halves) {
          out[o + offset] = half & 0xff;
          out[o + offset + 1] = half >>> 8;
        }
      }
      return;
    }
  }
}

/** llama.cpp's `use_more_bits`: the layers Q4_K_M gives Q6_K for attn_v and ffn_down. */
const useMoreBits = (layer: number, layers: number) =>
  layer < Math.floor(layers / 8) || layer >= Math.floor((7 * layers) / 8) || (layer - Math.floor(layers / 8)) % 3 === 2;

/** The type llama.cpp's Q4_K_M recipe (llama-quant.cpp, non-MoE llama) gives a matrix. */
function q4KmType(t: TensorSpec, layers: number): TinyGgufTensorType {
  const layer = /^blk\.(\d+)\./.exec(t.name);
  let type: TinyGgufTensorType = "q4_k";
  if (t.name === "output.weight") type = "q6_k";
  else if (layer && /attn_v|ffn_down/.test(t.name) && useMoreBits(Number(layer[1]), layers)) type = "q6_k";
  // rows whose length is not a multiple of 256 fall back to a 32-weight block type
  if (t.dims[0] % 256 !== 0) type = type === "q6_k" ? "q8_0" : "q5_0";
  return type;
}

export function tinyGgufParameterCount(opts: Partial<TinyGgufOptions> = {}): number {
  const o = { ...DEFAULTS, ...opts };
  const nVocab = buildTinyVocab(o.extraWords, o.vocabSize).tokens.length;
  return tensorSpecs(o, nVocab).reduce((sum, t) => sum + t.dims.reduce((a, b) => a * b, 1), 0);
}

function tensorSpecs(o: TinyGgufOptions, nVocab: number): TensorSpec[] {
  const headDim = o.nEmbd / o.nHeads;
  const kvDim = headDim * o.nHeadsKv;
  const specs: TensorSpec[] = [
    { name: "token_embd.weight", dims: [o.nEmbd, nVocab], kind: "matrix" },
    { name: "output_norm.weight", dims: [o.nEmbd], kind: "norm" },
    { name: "output.weight", dims: [o.nEmbd, nVocab], kind: "matrix" },
  ];
  for (let i = 0; i < o.nLayers; i++) {
    const p = `blk.${i}.`;
    specs.push(
      { name: p + "attn_norm.weight", dims: [o.nEmbd], kind: "norm" },
      { name: p + "attn_q.weight", dims: [o.nEmbd, o.nEmbd], kind: "matrix" },
      { name: p + "attn_k.weight", dims: [o.nEmbd, kvDim], kind: "matrix" },
      { name: p + "attn_v.weight", dims: [o.nEmbd, kvDim], kind: "matrix" },
      { name: p + "attn_output.weight", dims: [o.nEmbd, o.nEmbd], kind: "matrix" },
      { name: p + "ffn_norm.weight", dims: [o.nEmbd], kind: "norm" },
      { name: p + "ffn_gate.weight", dims: [o.nEmbd, o.nFf], kind: "matrix" },
      { name: p + "ffn_up.weight", dims: [o.nEmbd, o.nFf], kind: "matrix" },
      { name: p + "ffn_down.weight", dims: [o.nFf, o.nEmbd], kind: "matrix" },
    );
  }
  return specs;
}

/** Writes a random-weight GGUF v3 llama model to `path` (atomically: temp file then rename). */
export function writeTinyGguf(path: string, opts: Partial<TinyGgufOptions> = {}): void {
  const o: TinyGgufOptions = { ...DEFAULTS, ...opts };
  if (o.nEmbd % o.nHeads !== 0) throw new Error("nEmbd must be a multiple of nHeads");
  if (o.nHeads % o.nHeadsKv !== 0) throw new Error("nHeads must be a multiple of nHeadsKv");
  const block = o.weightType === "q4_k" || o.weightType === "q6_k" ? 256 : o.weightType === "f32" || o.weightType === "f16" ? 1 : 32;
  if (o.nEmbd % block !== 0 || o.nFf % block !== 0) throw new Error(`${o.weightType} weights need nEmbd and nFf to be multiples of ${block}`);

  const vocab = buildTinyVocab(o.extraWords, o.vocabSize);
  const nVocab = vocab.tokens.length;
  const specs = tensorSpecs(o, nVocab);
  const typeOf = (t: TensorSpec): TinyGgufTensorType =>
    t.kind === "norm" ? "f32" : o.weightType === "q4_k_m" ? q4KmType(t, o.nLayers) : o.weightType;

  const meta: [string, MetaValue][] = [
    ["general.architecture", { t: "str", v: "llama" }],
    ["general.name", { t: "str", v: o.name }],
    ["general.alignment", { t: "u32", v: ALIGNMENT }],
    ["general.file_type", { t: "u32", v: FILE_TYPE[o.weightType] }],
    ["llama.context_length", { t: "u32", v: o.nCtx }],
    ["llama.embedding_length", { t: "u32", v: o.nEmbd }],
    ["llama.block_count", { t: "u32", v: o.nLayers }],
    ["llama.feed_forward_length", { t: "u32", v: o.nFf }],
    ["llama.attention.head_count", { t: "u32", v: o.nHeads }],
    ["llama.attention.head_count_kv", { t: "u32", v: o.nHeadsKv }],
    ["llama.rope.dimension_count", { t: "u32", v: o.nEmbd / o.nHeads }],
    ["llama.rope.freq_base", { t: "f32", v: 10000 }],
    ["llama.attention.layer_norm_rms_epsilon", { t: "f32", v: 1e-5 }],
    ["llama.vocab_size", { t: "u32", v: nVocab }],
    ["tokenizer.ggml.model", { t: "str", v: "llama" }],
    ["tokenizer.ggml.tokens", { t: "str[]", v: vocab.tokens }],
    ["tokenizer.ggml.scores", { t: "f32[]", v: vocab.scores }],
    ["tokenizer.ggml.token_type", { t: "i32[]", v: vocab.types }],
    ["tokenizer.ggml.unknown_token_id", { t: "u32", v: 0 }],
    ["tokenizer.ggml.bos_token_id", { t: "u32", v: o.bosTokenId }],
    ["tokenizer.ggml.eos_token_id", { t: "u32", v: 2 }],
    ["tokenizer.ggml.add_bos_token", { t: "bool", v: o.addBosToken }],
    ["tokenizer.ggml.add_eos_token", { t: "bool", v: false }],
    ["tokenizer.chat_template", { t: "str", v: o.chatTemplate }],
  ];

  const head = new ByteWriter();
  head.u32(0x46554747); // "GGUF"
  head.u32(3);
  head.u64(specs.length);
  head.u64(meta.length);
  for (const [k, v] of meta) writeMeta(head, k, v);

  let offset = 0;
  const offsets: number[] = [];
  for (const t of specs) {
    head.str(t.name);
    head.u32(t.dims.length);
    for (const d of t.dims) head.u64(d);
    head.u32(GGML_TYPE[typeOf(t)]);
    head.u64(offset);
    offsets.push(offset);
    const size = bytesFor(typeOf(t), t.dims.reduce((a, b) => a * b, 1));
    offset += Math.ceil(size / ALIGNMENT) * ALIGNMENT;
  }
  head.pad(ALIGNMENT);

  const tmpPath = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmpPath, "w");
  try {
    writeSync(fd, head.bytes());
    // Stream the tensor data in chunks so a ~400 MB model never sits in memory at once.
    const CHUNK = 1 << 22; // elements per chunk, a multiple of every block size
    const scratch = Buffer.alloc(CHUNK * 4 + ALIGNMENT);
    let written = 0;
    specs.forEach((t, ti) => {
      const type = typeOf(t);
      const n = t.dims.reduce((a, b) => a * b, 1);
      const rnd = prng((o.seed * 1000003 + ti * 7919) >>> 0);
      if (t.kind === "norm") {
        const buf = Buffer.alloc(n * 4);
        new Float32Array(buf.buffer, buf.byteOffset, n).fill(1);
        writeSync(fd, buf);
        written += buf.length;
      } else {
        const std = 1 / Math.sqrt(t.dims[0]);
        for (let start = 0; start < n; start += CHUNK) {
          const count = Math.min(CHUNK, n - start);
          const size = bytesFor(type, count);
          const chunk = scratch.subarray(0, size);
          fillWeights(chunk, type, count, std, rnd);
          writeSync(fd, chunk);
          written += size;
        }
      }
      const padTo = offsets[ti] + Math.ceil(bytesFor(type, n) / ALIGNMENT) * ALIGNMENT;
      if (padTo > written) {
        writeSync(fd, Buffer.alloc(padTo - written));
        written = padTo;
      }
    });
  } finally {
    closeSync(fd);
  }
  renameSync(tmpPath, path);
}

/**
 * Writes the default tiny model once per process (and per option set) to a temp dir and
 * returns its path; later calls reuse the file.
 */
export function ensureTinyModel(dir?: string, opts: Partial<TinyGgufOptions> = {}): string {
  const key = Bun.hash(JSON.stringify({ ...DEFAULTS, ...opts })).toString(16);
  const folder = dir ?? join(tmpdir(), "lorehold-test-models");
  mkdirSync(folder, { recursive: true });
  const path = join(folder, `tiny-${key}.gguf`);
  if (!existsSync(path)) writeTinyGguf(path, opts);
  return path;
}
