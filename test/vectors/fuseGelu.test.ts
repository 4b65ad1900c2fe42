import { describe, expect, test } from "bun:test";
import { InferenceSession, Tensor } from "onnxruntime-node";
import { fuseGelu } from "../../src/vectors/onnx/fuseGelu.ts";
import { openGraph } from "../../src/vectors/onnx/onnxGraph.ts";
import { type Field, messageField, serializeFields, textField, varintField } from "../../src/vectors/onnx/protobufFields.ts";

// A hand-made ONNX model with the exact GELU as PyTorch exports it: y = x · (0.5 · (1 + erf(x / √2))); with `leak`,
// the erf's output is also a graph output, so the chain must stay.
const node = (op: string, inputs: string[], outputs: string[]) =>
  messageField(1, [...inputs.map((i) => textField(1, i)), ...outputs.map((o) => textField(2, o)), textField(3, `${op}_${outputs[0]}`), textField(4, op)]);
const scalar = (name: string, v: number) => messageField(5, [varintField(2, 1), textField(8, name), { no: 9, wire: 2, raw: new Uint8Array(new Float32Array([v]).buffer) }]);
const valueInfo = (no: number, name: string, dims: number[]) =>
  messageField(no, [textField(1, name), messageField(2, [messageField(1, [varintField(1, 1), messageField(2, dims.map((d) => messageField(1, [varintField(1, d)])))])])]);

function model(leak: boolean, sqrt2 = Math.SQRT2): Uint8Array {
  const graph: Field[] = [
    node("Div", ["x", "sqrt2"], ["d"]),
    node("Erf", ["d"], ["e"]),
    node("Add", ["e", "one"], ["a"]),
    node("Mul", ["half", "a"], ["m"]),
    node("Mul", ["x", "m"], ["y"]),
    textField(2, "gelu"),
    scalar("sqrt2", sqrt2),
    scalar("one", 1),
    scalar("half", 0.5),
    valueInfo(11, "x", [2, 8]),
    valueInfo(12, "y", [2, 8]),
    ...(leak ? [valueInfo(12, "e", [2, 8])] : []),
  ];
  return serializeFields([varintField(1, 8), messageField(8, [textField(1, ""), varintField(2, 17)]), messageField(7, graph)]);
}
const ops = (m: Uint8Array) => openGraph(m)!.nodes.map((n) => (n.domain ? `${n.domain}.${n.op}` : n.op));
const x = Float32Array.from({ length: 16 }, (_, i) => (i - 8) * 0.7);

async function run(m: Uint8Array): Promise<Float32Array> {
  const s = await InferenceSession.create(m, { intraOpNumThreads: 1 });
  try {
    return (await s.run({ x: new Tensor("float32", x, [2, 8]) }, ["y"])).y.data as Float32Array;
  } finally {
    await s.release();
  }
}

describe("fuseGelu", () => {
  test("Div, Erf, Add, Mul, Mul become one Gelu with the same output", async () => {
    const { model: fused, fused: n } = fuseGelu(model(false));
    expect(n).toBe(1);
    expect(ops(fused)).toEqual(["com.microsoft.Gelu"]);
    expect([...openGraph(fused)!.initializers.keys()]).toEqual([]);
    const [a, b] = [await run(model(false)), await run(fused)];
    for (let i = 0; i < a.length; i++) expect(Math.abs(a[i] - b[i])).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(a[i])));
  });

  test("a chain with a reader outside it, or another constant, is left as it was", () => {
    const leaky = model(true);
    expect(fuseGelu(leaky)).toEqual({ model: leaky, fused: 0 });
    const other = model(false, 1.5);
    expect(fuseGelu(other)).toEqual({ model: other, fused: 0 });
  });
});
