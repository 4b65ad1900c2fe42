import { describe, expect, test } from "bun:test";
import { InferenceSession, Tensor } from "onnxruntime-node";
import { type Field, messageField, parseFields, serializeFields, textField, varintField } from "../../src/vectors/onnx/protobufFields.ts";
import { pruneNanGuards } from "../../src/vectors/onnx/pruneNanGuards.ts";

// A hand-made ONNX model (onnx.proto field numbers): y = Where(IsNaN(p), 0, p), the guard an attention export
// puts after its softmax, with p = x + 1; and z = Where(IsNaN(x), 0, p), a Where that is not such a guard.
const node = (op: string, inputs: string[], outputs: string[]) =>
  messageField(1, [...inputs.map((i) => textField(1, i)), ...outputs.map((o) => textField(2, o)), textField(3, `${op}_${outputs[0]}`), textField(4, op)]);
const floatTensor = (name: string, values: number[], dims: number[]) =>
  messageField(5, [...dims.map((d) => varintField(1, d)), varintField(2, 1), textField(8, name), { no: 9, wire: 2, raw: new Uint8Array(new Float32Array(values).buffer) }]);
const valueInfo = (no: number, name: string, dims: number[]) =>
  messageField(no, [textField(1, name), messageField(2, [messageField(1, [varintField(1, 1), messageField(2, dims.map((d) => messageField(1, [varintField(1, d)])))])])]);

function model(withOther: boolean): Uint8Array {
  const graph: Field[] = [
    node("Add", ["x", "one"], ["p"]),
    node("IsNaN", ["p"], ["p_nan"]),
    node("Where", ["p_nan", "zero", "p"], ["y"]),
    ...(withOther ? [node("IsNaN", ["x"], ["x_nan"]), node("Where", ["x_nan", "zero", "p"], ["z"])] : []),
    textField(2, "guards"),
    floatTensor("zero", [0], []),
    floatTensor("one", [1], []),
    valueInfo(11, "x", [2, 3]),
    valueInfo(12, "y", [2, 3]),
    ...(withOther ? [valueInfo(12, "z", [2, 3])] : []),
  ];
  return serializeFields([varintField(1, 8), messageField(8, [textField(1, ""), varintField(2, 17)]), messageField(7, graph)]);
}

const ops = (bytes: Uint8Array) =>
  parseFields(parseFields(bytes).find((f) => f.no === 7)!.raw)
    .filter((f) => f.no === 1)
    .map((n) => new TextDecoder().decode(parseFields(n.raw).find((p) => p.no === 4)!.raw));

async function run(bytes: Uint8Array, x: number[]): Promise<Record<string, number[]>> {
  const s = await InferenceSession.create(bytes, { graphOptimizationLevel: "disabled" });
  try {
    const out = await s.run({ x: new Tensor("float32", Float32Array.from(x), [2, 3]) });
    return Object.fromEntries(Object.entries(out).map(([k, t]) => [k, Array.from(t.data as Float32Array)]));
  } finally {
    await s.release();
  }
}

describe("pruneNanGuards", () => {
  test("Where(IsNaN(p), 0, p) becomes p: the same output wherever p has no NaN", async () => {
    const before = model(false);
    const { model: after, pruned } = pruneNanGuards(before);
    expect(pruned).toBe(1);
    expect(ops(before)).toEqual(["Add", "IsNaN", "Where"]);
    expect(ops(after)).toEqual(["Add", "Identity"]);
    const x = [0.5, -2, 3, 1e-7, -1, 40];
    expect(await run(after, x)).toEqual(await run(before, x));
    // and what the guard did, it no longer does: a NaN goes through (no input the embedder makes has one)
    expect((await run(before, [Number.NaN, 0, 0, 0, 0, 0])).y[0]).toBe(0);
    expect((await run(after, [Number.NaN, 0, 0, 0, 0, 0])).y[0]).toBeNaN();
  });

  test("a Where on another tensor's NaNs is left alone; a model with no guard comes back as it was", async () => {
    const { model: after, pruned } = pruneNanGuards(model(true));
    expect(pruned).toBe(1);
    expect(ops(after)).toEqual(["Add", "Identity", "IsNaN", "Where"]);
    const out = await run(after, [Number.NaN, 1, 2, 3, 4, 5]);
    expect(out.z[0]).toBe(0);
    const plain = serializeFields([varintField(1, 8), messageField(8, [textField(1, ""), varintField(2, 17)]), messageField(7, [node("Add", ["x", "one"], ["y"]), floatTensor("one", [1], []), valueInfo(11, "x", [2, 3]), valueInfo(12, "y", [2, 3])])]);
    const same = pruneNanGuards(plain);
    expect(same.pruned).toBe(0);
    expect(same.model).toBe(plain);
  });

  test("bytes that are not a protobuf message are refused, not misread", () => {
    expect(() => pruneNanGuards(new Uint8Array([0x3a, 0xff, 0xff, 0xff, 0x0f, 1, 2]))).toThrow(/protobuf/);
  });
});
