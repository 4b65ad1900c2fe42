import { describe, expect, test } from "bun:test";
import { InferenceSession, Tensor } from "onnxruntime-node";
import { int8MatMuls } from "../../src/vectors/onnx/int8MatMuls.ts";
import { openGraph } from "../../src/vectors/onnx/onnxGraph.ts";
import { type Field, messageField, serializeFields, textField, varintField } from "../../src/vectors/onnx/protobufFields.ts";

// A hand-made ONNX model (onnx.proto field numbers) holding a weight-only quantised projection as exporters write
// it: y = MatMul(x, Cast(W_int8) × scale), x [rows, K], W [K, N], one scale per column; with `shared`, the
// dequantised weight is also read by a second node (z = W + 0), so it must stay.
const K = 64;
const N = 24;
const node = (op: string, inputs: string[], outputs: string[], attrs: Field[] = []) =>
  messageField(1, [...inputs.map((i) => textField(1, i)), ...outputs.map((o) => textField(2, o)), textField(3, `${op}_${outputs[0]}`), textField(4, op), ...attrs]);
const tensor = (name: string, type: number, dims: number[], raw: Uint8Array) => messageField(5, [...dims.map((d) => varintField(1, d)), varintField(2, type), textField(8, name), { no: 9, wire: 2, raw }]);
const valueInfo = (no: number, name: string, dims: number[]) =>
  messageField(no, [textField(1, name), messageField(2, [messageField(1, [varintField(1, 1), messageField(2, dims.map((d) => messageField(1, [varintField(1, d)])))])])]);
const castToFloat = messageField(5, [textField(1, "to"), varintField(3, 1), varintField(20, 2)]);

function rng(seed: number): () => number {
  let x = seed;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

const r = rng(7);
const wq = Int8Array.from({ length: K * N }, () => Math.round(r() * 254 - 127));
const scale = Float32Array.from({ length: N }, () => 0.001 + r() * 0.02);

const bias = Float32Array.from({ length: N }, () => r() - 0.5);

function model(shared: boolean, withBias = false): Uint8Array {
  const graph: Field[] = [
    node("Cast", ["w_q"], ["w_f"], [castToFloat]),
    node("Mul", ["w_f", "w_scale"], ["w"]),
    ...(withBias ? [node("MatMul", ["x", "w"], ["xw"]), node("Add", ["xw", "b"], ["y"])] : [node("MatMul", ["x", "w"], ["y"])]),
    ...(withBias ? [tensor("b", 1, [N], new Uint8Array(bias.buffer))] : []),
    ...(shared ? [node("Add", ["w", "zero"], ["z"])] : []),
    textField(2, "projection"),
    tensor("w_q", 3, [K, N], new Uint8Array(wq.buffer)),
    tensor("w_scale", 1, [1, N], new Uint8Array(scale.buffer)),
    ...(shared ? [tensor("zero", 1, [], new Uint8Array(new Float32Array([0]).buffer))] : []),
    valueInfo(11, "x", [3, K]),
    valueInfo(12, "y", [3, N]),
    ...(shared ? [valueInfo(12, "z", [K, N])] : []),
    valueInfo(13, "w_f", [K, N]),
    valueInfo(13, "w", [K, N]),
  ];
  return serializeFields([varintField(1, 8), messageField(8, [textField(1, ""), varintField(2, 17)]), messageField(7, graph)]);
}

const ops = (bytes: Uint8Array) => openGraph(bytes)!.nodes.map((n) => (n.domain ? `${n.domain}.${n.op}` : n.op));
const x = Float32Array.from({ length: 3 * K }, () => r() * 4 - 2);

async function run(bytes: Uint8Array): Promise<Float32Array> {
  const s = await InferenceSession.create(bytes, { graphOptimizationLevel: "all", intraOpNumThreads: 1 });
  try {
    return (await s.run({ x: new Tensor("float32", x, [3, K]) })).y.data as Float32Array;
  } finally {
    await s.release();
  }
}

describe("int8MatMuls", () => {
  test("MatMul(x, Cast(W_int8) × scale) becomes DynamicQuantizeMatMul(x, W_int8, scale): the float dequantisation goes", () => {
    const { model: after, rewritten } = int8MatMuls(model(false));
    expect(rewritten).toBe(1);
    expect(ops(model(false))).toEqual(["Cast", "Mul", "MatMul"]);
    expect(ops(after)).toEqual(["com.microsoft.DynamicQuantizeMatMul"]);
    const g = openGraph(after)!;
    // the weight is the model's own int8 tensor, byte for byte; the scale now 1-D; the float leftovers are gone
    expect(g.initializers.get("w_q")!.raw).toEqual(new Uint8Array(wq.buffer));
    expect([...g.initializers.values()].map((i) => [i.name, i.dims])).toEqual([
      ["w_q", [K, N]],
      ["w_scale/columns", [N]],
    ]);
    const u8 = openGraph(int8MatMuls(model(false), { weights: "u8" }).model)!;
    expect([...u8.initializers.values()].map((i) => [i.name, i.dataType])).toEqual([
      ["w_scale/columns", 1],
      ["w_q/u8", 2],
      ["w_q/zero", 2],
    ]);
  });

  // Bound: x is rounded to 8 bits with one scale s = (max(x, 0) − min(x, 0)) / 255, so each x is off by at most s/2
  // and each output by at most s/2 · Σ_k |W_kn| (the weights are exact). That holds on any CPU: VNNI, AMX or the
  // AVX2 u8×u8 path (no 16-bit saturation there).
  test("the output is the float graph's within the rounding of x to 8 bits, signed or unsigned weights", async () => {
    const float = await run(model(false));
    const s = (Math.max(0, ...x) - Math.min(0, ...x)) / 255;
    for (const weights of ["s8", "u8"] as const) {
      const int8 = await run(int8MatMuls(model(false), { weights }).model);
      for (let row = 0; row < 3; row++)
        for (let n = 0; n < N; n++) {
          let bound = 0;
          for (let k = 0; k < K; k++) bound += (Math.abs(wq[k * N + n]) * scale[n] * s) / 2;
          expect(Math.abs(int8[row * N + n] - float[row * N + n])).toBeLessThanOrEqual(bound * 1.001 + 1e-6);
        }
      // and it is not the float graph's by accident: 8-bit rounding moves something
      expect(int8.some((v, i) => v !== float[i])).toBe(true);
    }
  });

  test("the bias Add after the MatMul goes into the integer op: the same output as with the Add apart", async () => {
    const { model: folded, rewritten } = int8MatMuls(model(false, true));
    expect(rewritten).toBe(1);
    expect(ops(model(false, true))).toEqual(["Cast", "Mul", "MatMul", "Add"]);
    expect(ops(folded)).toEqual(["com.microsoft.DynamicQuantizeMatMul"]);
    expect(openGraph(folded)!.nodes[0].inputs).toEqual(["x", "w_q", "w_scale/columns", "", "b"]);
    const apart = int8MatMuls(model(false, true), { bias: false }).model;
    expect(ops(apart)).toEqual(["com.microsoft.DynamicQuantizeMatMul", "Add"]);
    const [a, b] = [await run(folded), await run(apart)];
    for (let i = 0; i < a.length; i++) expect(a[i]).toBeCloseTo(b[i], 5);
    // and the bias is in: without it the outputs differ by it
    const none = await run(int8MatMuls(model(false)).model);
    expect(a[3] - none[3]).toBeCloseTo(bias[3], 5);
  });

  test("a dequantised weight another node reads keeps its Cast and Mul; a model without one comes back unchanged", async () => {
    const { model: after, rewritten } = int8MatMuls(model(true));
    expect(rewritten).toBe(1);
    expect(ops(after)).toEqual(["Cast", "Mul", "com.microsoft.DynamicQuantizeMatMul", "Add"]);
    const s = await InferenceSession.create(after, { intraOpNumThreads: 1 });
    const out = await s.run({ x: new Tensor("float32", x, [3, K]) });
    expect((out.z.data as Float32Array)[5]).toBeCloseTo(wq[5] * scale[5], 6);
    await s.release();
    const plain = serializeFields([varintField(1, 8), messageField(8, [textField(1, ""), varintField(2, 17)]), messageField(7, [node("MatMul", ["x", "x2"], ["y"]), valueInfo(11, "x", [3, 3]), valueInfo(11, "x2", [3, 3]), valueInfo(12, "y", [3, 3])])]);
    const same = int8MatMuls(plain);
    expect(same.rewritten).toBe(0);
    expect(same.model).toBe(plain);
  });

  test("the contrib domain is imported once", () => {
    const once = int8MatMuls(model(false)).model;
    const domains = openGraph(once)!.top.filter((f) => f.no === 8).length;
    expect(domains).toBe(2);
    expect(openGraph(int8MatMuls(once).model)!.top.filter((f) => f.no === 8).length).toBe(2);
  });
});
