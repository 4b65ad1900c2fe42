import { DTYPE, dropOrphans, type GraphNode, type Initializer, NODE, nodeField, type OnnxGraph, openGraph, tensorField, writeModel } from "./onnxGraph.ts";
import { type Field, fieldText, parseFields } from "./protobufFields.ts";

/** How the int8 weights go to ONNX Runtime's integer GEMM. */
export type Int8Weights = "s8" | "u8";

export interface Int8MatMulOptions {
  /**
   * "s8" (default): the weights as they are (signed), activations quantised to uint8: ORT's u8×s8 kernels (VNNI/AMX
   * where the CPU has them). "u8": the weights shifted to uint8 around a zero point of 128: ORT's u8×u8 kernels,
   * which widen to 16 bits first and so never saturate on CPUs without VNNI.
   */
  weights?: Int8Weights;
  /**
   * Leave the MatMuls that narrow (K > N: a transformer's FFN output projection, which reads the GELU's wide,
   * outlier-heavy output) in float: closer vectors for less speed.
   */
  keepNarrowing?: boolean;
  /** Fold the bias Add that follows a MatMul into the integer op (default true: one pass over the output less) */
  bias?: boolean;
}

const ATTRIBUTE = NODE.attribute;
const CONTRIB = "com.microsoft";

/** The `to` attribute of a Cast node. */
function castTo(n: GraphNode): number | null {
  for (const a of n.parts.filter((p) => p.no === ATTRIBUTE && p.wire === 2)) {
    const fields = parseFields(a.raw);
    const name = fields.find((f) => f.no === 1 && f.wire === 2);
    const i = fields.find((f) => f.no === 3 && f.wire === 0);
    if (name && fieldText(name) === "to" && i) return i.raw[0];
  }
  return null;
}

/** The int8 weight and its per-column scale behind `w`, if `w` = Cast(int8 initializer [K, N]) × float initializer [N] or [1, N]. */
function dequantised(w: string, producer: Map<string, GraphNode>, inits: Map<string, Initializer>): { mul: GraphNode; cast: GraphNode; q: Initializer; scale: Initializer } | null {
  const mul = producer.get(w);
  if (mul?.op !== "Mul" || mul.domain !== "" || mul.inputs.length !== 2) return null;
  for (const [c, s] of [mul.inputs, [...mul.inputs].reverse()]) {
    const cast = producer.get(c);
    const scale = inits.get(s);
    if (cast?.op !== "Cast" || castTo(cast) !== DTYPE.float || !scale || scale.dataType !== DTYPE.float || !scale.raw) continue;
    const q = inits.get(cast.inputs[0]);
    if (!q || q.dataType !== DTYPE.int8 || !q.raw || q.dims.length !== 2) continue;
    const n = q.dims[1];
    const perColumn = scale.dims.reduce((a, b) => a * b, 1) === n && scale.dims.at(-1) === n && scale.dims.length <= 2;
    if (!perColumn || scale.raw.length !== 4 * n || q.raw.length !== q.dims[0] * n) continue;
    return { mul, cast, q, scale };
  }
  return null;
}

/** The `Add(y, bias)` that alone reads MatMul `n`'s output y, with `bias` a float initializer of [cols]. */
function biasAdd(n: GraphNode, cols: number, g: OnnxGraph): { node: GraphNode; bias: string } | null {
  const y = n.outputs[0];
  if (g.readers.get(y) !== 1) return null;
  const add = g.nodes.find((m) => m.op === "Add" && m.domain === "" && m.inputs.length === 2 && m.inputs.includes(y));
  const bias = add?.inputs.find((i) => i !== y);
  const t = bias === undefined ? undefined : g.initializers.get(bias);
  if (!add || !t || t.dataType !== DTYPE.float || t.dims.length !== 1 || t.dims[0] !== cols) return null;
  return { node: add, bias: t.name };
}

/**
 * Runs the model's int8-weighted MatMuls in integers. A weight-only quantised export (all-MiniLM-L6-v2's
 * `model_int8.onnx`) keeps each projection as `MatMul(x, Cast(W_int8) × scale)`: ONNX Runtime folds the Cast and
 * the Mul into a float32 weight at load and computes in float. Each such MatMul becomes ONNX Runtime's
 * `com.microsoft.DynamicQuantizeMatMul(x, W_int8, scale[, bias])`, which quantises x to uint8 on the fly (one scale
 * per tensor) and runs the integer GEMM; the Cast and Mul go when nothing else reads them, and the bias Add that
 * follows goes into the op. The weights are the model's own, bit for bit; what changes is x's rounding to 8 bits,
 * so the output is close to the float graph's, not equal (bench/minilm-int8.ts measures how close). Returns the
 * bytes unchanged when nothing matched.
 */
export function int8MatMuls(model: Uint8Array, opts: Int8MatMulOptions = {}): { model: Uint8Array; rewritten: number } {
  const g = openGraph(model);
  if (!g) return { model, rewritten: 0 };
  const replaced = new Map<Field, Field>();
  const dropped = new Set<Field>();
  const added: Field[] = [];
  const made = new Set<string>();
  const unique = (name: string) => {
    let n = name;
    for (let i = 2; g.initializers.has(n) || g.readers.has(n) || g.producer.has(n) || made.has(n); i++) n = `${name}_${i}`;
    made.add(n);
    return n;
  };
  const u8 = opts.weights === "u8";
  /** int8 weight → the B inputs (weight, scale[, zero point]) its MatMuls get */
  const converted = new Map<string, string[]>();
  for (const n of g.nodes) {
    if (n.op !== "MatMul" || n.domain !== "" || n.inputs.length !== 2) continue;
    const d = dequantised(n.inputs[1], g.producer, g.initializers);
    if (!d) continue;
    // One set of integer inputs per weight, however many MatMuls read it.
    let inputs = converted.get(d.q.name);
    const [rows, cols] = d.q.dims;
    if (opts.keepNarrowing && rows > cols) continue;
    if (!inputs) {
      const scale = unique(`${d.scale.name}/columns`);
      added.push(tensorField(scale, DTYPE.float, [cols], d.scale.raw!));
      if (u8) {
        const shifted = new Uint8Array(d.q.raw!.length);
        for (let i = 0; i < shifted.length; i++) shifted[i] = (d.q.raw![i] + 128) & 0xff;
        const weight = unique(`${d.q.name}/u8`);
        const zero = unique(`${d.q.name}/zero`);
        added.push(tensorField(weight, DTYPE.uint8, d.q.dims, shifted), tensorField(zero, DTYPE.uint8, [cols], new Uint8Array(cols).fill(128)));
        inputs = [weight, scale, zero];
      } else inputs = [d.q.name, scale];
      converted.set(d.q.name, inputs);
    }
    const add = opts.bias === false ? null : biasAdd(n, cols, g);
    const b = add ? [...(inputs.length === 2 ? [...inputs, ""] : inputs), add.bias] : inputs;
    replaced.set(n.field, nodeField("DynamicQuantizeMatMul", CONTRIB, `${n.name}/int8`, [n.inputs[0], ...b], add ? add.node.outputs : n.outputs));
    if (add) dropped.add(add.node.field);
    // The dequantising nodes go once the MatMul was their only reader.
    if (g.readers.get(n.inputs[1]) === 1) {
      dropped.add(d.mul.field);
      if (g.readers.get(d.cast.outputs[0]) === 1) dropped.add(d.cast.field);
    }
  }
  if (replaced.size === 0) return { model, rewritten: 0 };
  // Initializers after the nodes are legal ONNX: fields of a message may come in any order.
  const graph = dropOrphans([...g.graph.filter((f) => !dropped.has(f)).map((f) => replaced.get(f) ?? f), ...added]);
  return { model: writeModel(g, graph, { name: CONTRIB, version: 1 }), rewritten: replaced.size };
}
