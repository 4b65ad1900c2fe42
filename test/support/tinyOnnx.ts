/**
 * Writes a tiny BERT-like sentence-embedding model folder that transformers.js
 * loads with no download: a WordPiece `tokenizer.json`, `tokenizer_config.json`,
 * `config.json` and `onnx/model.onnx`.
 *
 * The ONNX graph is an embedding lookup, no attention:
 *   last_hidden_state = (word_emb[input_ids] + type_emb[token_type_ids]) * attention_mask[..., None]
 * with fixed pseudo-random weights, so the same text always gives the same
 * vector and different words give different ones. The protobuf is encoded by
 * hand below (the handful of ONNX message fields this graph needs).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { prng } from "./prng.ts";

// ------------------------------------------------------------------ protobuf

/** A protobuf message being built: fields appended in order as raw bytes. */
class Pb {
  private chunks: Uint8Array[] = [];

  private push(bytes: number[] | Uint8Array): this {
    this.chunks.push(bytes instanceof Uint8Array ? bytes : Uint8Array.from(bytes));
    return this;
  }

  private static varint(value: number | bigint): number[] {
    // int64 on the wire: negative values are their 64-bit two's complement (10 bytes).
    let v = BigInt.asUintN(64, BigInt(value));
    const out: number[] = [];
    do {
      let b = Number(v & 0x7fn);
      v >>= 7n;
      if (v) b |= 0x80;
      out.push(b);
    } while (v);
    return out;
  }

  private key(field: number, wireType: number): this {
    return this.push(Pb.varint((field << 3) | wireType));
  }

  int(field: number, value: number | bigint): this {
    return this.key(field, 0).push(Pb.varint(value));
  }

  bytes(field: number, value: Uint8Array): this {
    return this.key(field, 2).push(Pb.varint(value.length)).push(value);
  }

  string(field: number, value: string): this {
    return this.bytes(field, new TextEncoder().encode(value));
  }

  message(field: number, m: Pb): this {
    return this.bytes(field, m.finish());
  }

  finish(): Uint8Array {
    const total = this.chunks.reduce((n, c) => n + c.length, 0);
    const out = new Uint8Array(total);
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}

// --------------------------------------------------------------- ONNX schema
// Field numbers from onnx/onnx.proto (ModelProto, GraphProto, NodeProto, ...).

const ELEM_FLOAT = 1;
const ELEM_INT64 = 7;
const ATTR_INT = 2;

function tensor(name: string, elemType: number, dims: number[], raw: Uint8Array): Pb {
  const t = new Pb();
  for (const d of dims) t.int(1, d); // dims
  return t.int(2, elemType).string(8, name).bytes(9, raw); // data_type, name, raw_data
}

function valueInfo(name: string, elemType: number, shape: (number | string)[]): Pb {
  const shapeMsg = new Pb();
  for (const d of shape) shapeMsg.message(1, typeof d === "number" ? new Pb().int(1, d) : new Pb().string(2, d)); // dim_value / dim_param
  const tensorType = new Pb().int(1, elemType).message(2, shapeMsg);
  return new Pb().string(1, name).message(2, new Pb().message(1, tensorType)); // ValueInfo.type.tensor_type
}

function node(op: string, inputs: string[], outputs: string[], attrs: Pb[] = []): Pb {
  const n = new Pb();
  for (const i of inputs) n.string(1, i);
  for (const o of outputs) n.string(2, o);
  n.string(3, `${op}_${outputs[0]}`).string(4, op);
  for (const a of attrs) n.message(5, a);
  return n;
}

function intAttr(name: string, value: number): Pb {
  return new Pb().string(1, name).int(3, value).int(20, ATTR_INT);
}

/** The opset-13 ModelProto around a graph. */
function onnxModel(graph: Pb, producer: string): Uint8Array {
  return new Pb()
    .int(1, 8) // ir_version
    .string(2, producer) // producer_name
    .message(7, graph)
    .message(8, new Pb().string(1, "").int(2, 13)) // opset_import: default domain, opset 13
    .finish();
}

/**
 * The smallest graph that proves onnxruntime's native binding loads and
 * computes: y = x + x over float32[1, 4] (the executable's probe uses it).
 */
export function tinyAddModel(): Uint8Array {
  const graph = new Pb()
    .message(1, node("Add", ["x", "x"], ["y"]))
    .string(2, "lorehold-probe")
    .message(11, valueInfo("x", ELEM_FLOAT, [1, 4]))
    .message(12, valueInfo("y", ELEM_FLOAT, [1, 4]));
  return onnxModel(graph, "lorehold");
}

// ------------------------------------------------------------------ the model

const SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"];
const DEFAULT_WORDS =
  "the a an of and to in is was he she it they dragon dragons mountain inn innkeeper ale tavern king queen sword river forest castle thief guard gold silver caravan road tunnel smuggler town history".split(
    " ",
  );


export interface TinyModelOptions {
  /** Hidden size = embedding dims. Default 32. */
  dims?: number;
  /** Weight seed. Default 42. */
  seed?: number;
  /** Whole-word vocabulary entries on top of single characters. */
  words?: string[];
  /** Square MatMul layers after the lookup (default 0): a pass then costs real compute, for tests that need one under way. */
  layers?: number;
}

export interface TinyModel {
  dir: string;
  dims: number;
  vocabSize: number;
}

/** Writes the model folder `dir` (created if needed). */
export function writeTinyOnnxModel(dir: string, opts: TinyModelOptions = {}): TinyModel {
  const dims = opts.dims ?? 32;
  const rand = prng(opts.seed ?? 42);

  const chars = [..."abcdefghijklmnopqrstuvwxyz0123456789"];
  const punct = [...".,!?'\"-:;()"];
  const vocabList = [...SPECIALS, ...chars, ...punct, ...chars.map((c) => `##${c}`), ...new Set(opts.words ?? DEFAULT_WORDS)];
  const vocab: Record<string, number> = {};
  for (const w of vocabList) if (!(w in vocab)) vocab[w] = Object.keys(vocab).length;
  const vocabSize = Object.keys(vocab).length;

  const floats = (n: number) => {
    const a = new Float32Array(n);
    for (let i = 0; i < n; i++) a[i] = rand() * 2 - 1;
    return new Uint8Array(a.buffer);
  };
  const wordEmb = floats(vocabSize * dims);
  const typeEmb = floats(2 * dims);
  const axes = new Uint8Array(new BigInt64Array([2n]).buffer);
  const layers = Array.from({ length: opts.layers ?? 0 }, (_, i) => {
    const w = new Float32Array(dims * dims);
    for (let k = 0; k < w.length; k++) w[k] = (rand() * 2 - 1) / Math.sqrt(dims);
    return { name: `layer_${i}`, raw: new Uint8Array(w.buffer) };
  });
  const last = layers.length ? `hidden_${layers.length}` : "hidden";

  const graph = new Pb()
    .message(1, node("Gather", ["word_embeddings", "input_ids"], ["word_vectors"]))
    .message(1, node("Gather", ["token_type_embeddings", "token_type_ids"], ["type_vectors"]))
    .message(1, node("Add", ["word_vectors", "type_vectors"], ["hidden"]))
    .message(1, node("Cast", ["attention_mask"], ["mask_float"], [intAttr("to", ELEM_FLOAT)]))
    .message(1, node("Unsqueeze", ["mask_float", "unsqueeze_axes"], ["mask_3d"]))
    .message(1, node("Mul", [last, "mask_3d"], ["last_hidden_state"]))
    .string(2, "tiny_bert")
    .message(5, tensor("word_embeddings", ELEM_FLOAT, [vocabSize, dims], wordEmb))
    .message(5, tensor("token_type_embeddings", ELEM_FLOAT, [2, dims], typeEmb))
    .message(5, tensor("unsqueeze_axes", ELEM_INT64, [1], axes))
    .message(11, valueInfo("input_ids", ELEM_INT64, ["batch_size", "sequence_length"]))
    .message(11, valueInfo("attention_mask", ELEM_INT64, ["batch_size", "sequence_length"]))
    .message(11, valueInfo("token_type_ids", ELEM_INT64, ["batch_size", "sequence_length"]))
    .message(12, valueInfo("last_hidden_state", ELEM_FLOAT, ["batch_size", "sequence_length", dims]));
  layers.forEach((l, i) => {
    graph.message(1, node("MatMul", [i ? `hidden_${i}` : "hidden", l.name], [`hidden_${i + 1}`]));
    graph.message(5, tensor(l.name, ELEM_FLOAT, [dims, dims], l.raw));
  });

  mkdirSync(join(dir, "onnx"), { recursive: true });
  writeFileSync(join(dir, "onnx", "model.onnx"), onnxModel(graph, "lorehold-tests"));

  const special = (content: string) => ({
    id: vocab[content],
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  const tokenizer = {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: SPECIALS.map(special),
    normalizer: { type: "BertNormalizer", clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: "BertPreTokenizer" },
    post_processor: {
      type: "TemplateProcessing",
      single: [{ SpecialToken: { id: "[CLS]", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }, { SpecialToken: { id: "[SEP]", type_id: 0 } }],
      pair: [
        { SpecialToken: { id: "[CLS]", type_id: 0 } },
        { Sequence: { id: "A", type_id: 0 } },
        { SpecialToken: { id: "[SEP]", type_id: 0 } },
        { Sequence: { id: "B", type_id: 1 } },
        { SpecialToken: { id: "[SEP]", type_id: 1 } },
      ],
      special_tokens: {
        "[CLS]": { id: "[CLS]", ids: [vocab["[CLS]"]], tokens: ["[CLS]"] },
        "[SEP]": { id: "[SEP]", ids: [vocab["[SEP]"]], tokens: ["[SEP]"] },
      },
    },
    decoder: { type: "WordPiece", prefix: "##", cleanup: true },
    model: { type: "WordPiece", unk_token: "[UNK]", continuing_subword_prefix: "##", max_input_chars_per_word: 100, vocab },
  };
  writeFileSync(join(dir, "tokenizer.json"), JSON.stringify(tokenizer));
  writeFileSync(
    join(dir, "tokenizer_config.json"),
    JSON.stringify({
      tokenizer_class: "BertTokenizer",
      do_lower_case: true,
      model_max_length: 512,
      pad_token: "[PAD]",
      unk_token: "[UNK]",
      cls_token: "[CLS]",
      sep_token: "[SEP]",
      mask_token: "[MASK]",
      clean_up_tokenization_spaces: true,
    }),
  );
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({
      model_type: "bert",
      architectures: ["BertModel"],
      hidden_size: dims,
      vocab_size: vocabSize,
      type_vocab_size: 2,
      max_position_embeddings: 512,
      num_attention_heads: 1,
      num_hidden_layers: 1,
      intermediate_size: dims,
      pad_token_id: 0,
    }),
  );
  return { dir, dims, vocabSize };
}
