import { DTYPE, dropOrphans, type GraphNode, nodeField, type OnnxGraph, openGraph, writeModel } from "./onnxGraph.ts";
import type { Field } from "./protobufFields.ts";

/** A float scalar initializer's value, if `name` is one. */
function scalar(g: OnnxGraph, name: string): number | null {
  const t = g.initializers.get(name);
  if (!t || t.dataType !== DTYPE.float || !t.raw || t.raw.length !== 4 || t.dims.some((d) => d !== 1)) return null;
  return new DataView(t.raw.buffer, t.raw.byteOffset, 4).getFloat32(0, true);
}

const near = (a: number | null, b: number) => a !== null && Math.abs(a - b) < 1e-4;

/**
 * Fuses each exact (erf) GELU as PyTorch exports it, `x · 0.5 · (1 + erf(x / √2))` in five nodes (Div, Erf, Add,
 * Mul, Mul), into ONNX Runtime's `com.microsoft.Gelu(x)`: one pass over the FFN's widest tensor instead of five.
 * ONNX Runtime's own GELU fusion does not match this export's order of the two Muls. The same function, computed
 * by ORT's kernel (erf evaluated the same way): outputs agree to float rounding. Each intermediate must have no
 * other reader; anything else is left alone.
 */
export function fuseGelu(model: Uint8Array): { model: Uint8Array; fused: number } {
  const g = openGraph(model);
  if (!g) return { model, fused: 0 };
  const readersOf = new Map<string, GraphNode[]>();
  for (const n of g.nodes) for (const i of n.inputs) readersOf.set(i, [...(readersOf.get(i) ?? []), n]);
  const only = (t: string): GraphNode | null => (g.readers.get(t) === 1 ? (readersOf.get(t)?.[0] ?? null) : null);
  const other = (n: GraphNode, t: string) => (n.inputs.length === 2 && n.inputs.includes(t) ? n.inputs[n.inputs[0] === t ? 1 : 0] : null);
  const replaced = new Map<Field, Field>();
  const dropped = new Set<Field>();
  for (const erf of g.nodes.filter((n) => n.op === "Erf" && n.domain === "")) {
    const div = g.producer.get(erf.inputs[0]);
    if (div?.op !== "Div" || div.domain !== "" || !near(scalar(g, div.inputs[1]), Math.SQRT2) || g.readers.get(div.outputs[0]) !== 1) continue;
    const x = div.inputs[0];
    const add = only(erf.outputs[0]);
    if (add?.op !== "Add" || !near(scalar(g, other(add, erf.outputs[0]) ?? ""), 1)) continue;
    const m1 = only(add.outputs[0]);
    if (m1?.op !== "Mul") continue;
    const m2 = only(m1.outputs[0]);
    if (m2?.op !== "Mul") continue;
    const a = other(m1, add.outputs[0]);
    const b = other(m2, m1.outputs[0]);
    // 0.5 · (1 + erf) then · x, or x · (1 + erf) then · 0.5
    const ok = (near(scalar(g, a ?? ""), 0.5) && b === x) || (a === x && near(scalar(g, b ?? ""), 0.5));
    if (!ok || [div, erf, add, m1, m2].some((n) => n.domain !== "")) continue;
    replaced.set(m2.field, nodeField("Gelu", "com.microsoft", `${m2.name}/gelu`, [x], m2.outputs));
    for (const n of [div, erf, add, m1]) dropped.add(n.field);
  }
  if (replaced.size === 0) return { model, fused: 0 };
  const graph = dropOrphans(g.graph.filter((f) => !dropped.has(f)).map((f) => replaced.get(f) ?? f));
  return { model: writeModel(g, graph, { name: "com.microsoft", version: 1 }), fused: replaced.size };
}
