import { GRAPH, NODE, openGraph, writeModel } from "./onnxGraph.ts";
import { type Field, messageField, textField } from "./protobufFields.ts";

/**
 * Removes the NaN guards PyTorch's scaled-dot-product-attention export puts after every softmax:
 * `Where(IsNaN(p), 0, p)` becomes `p` (an Identity, which ONNX Runtime then drops). The guard only ever replaces the
 * NaN of a query row whose every key is masked; a text's own segment always has its [CLS] unmasked, so no such row
 * exists and the output is bit for bit the same (test/vectors/pruneNanGuards.test.ts). On all-MiniLM-L6-v2 the
 * guards were 15 % of a pass's CPU (a broadcasting Where over [heads, n, n] per layer; bench/minilm-profile.ts).
 * Returns the model unchanged (same bytes) when it has no such guard.
 */
export function pruneNanGuards(model: Uint8Array): { model: Uint8Array; pruned: number } {
  const g = openGraph(model);
  if (!g) return { model, pruned: 0 };
  const replaced = new Map<Field, Field>();
  const dropped = new Set<Field>();
  for (const n of g.nodes) {
    if (n.op !== "Where" || n.inputs.length !== 3) continue;
    const [condition, , value] = n.inputs;
    const guard = g.producer.get(condition);
    if (guard?.op !== "IsNaN" || guard.inputs[0] !== value) continue;
    const rest = n.parts.filter((p) => p.no !== NODE.input && p.no !== NODE.op);
    replaced.set(n.field, messageField(GRAPH.node, [textField(NODE.input, value), ...rest, textField(NODE.op, "Identity")]));
    // The IsNaN goes too when the Where was its only reader.
    if (g.readers.get(condition) === 1) dropped.add(guard.field);
  }
  if (replaced.size === 0) return { model, pruned: 0 };
  return { model: writeModel(g, g.graph.filter((f) => !dropped.has(f)).map((f) => replaced.get(f) ?? f)), pruned: replaced.size };
}
