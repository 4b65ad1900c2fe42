import { type Field, fieldText, messageField, parseFields, serializeFields, textField } from "./protobufFields.ts";

// ONNX field numbers (onnx.proto): ModelProto.graph, GraphProto.node, NodeProto.{input, output, op_type}.
const MODEL_GRAPH = 7;
const GRAPH_NODE = 1;
const NODE_INPUT = 1;
const NODE_OUTPUT = 2;
const NODE_OP = 4;
const GRAPH_OUTPUT = 12;
const VALUE_NAME = 1;

interface Node {
  field: Field;
  parts: Field[];
  op: string;
  inputs: string[];
  outputs: string[];
}

/**
 * Removes the NaN guards PyTorch's scaled-dot-product-attention export puts after every softmax:
 * `Where(IsNaN(p), 0, p)` becomes `p` (an Identity, which ONNX Runtime then drops). The guard only ever replaces the
 * NaN of a query row whose every key is masked; a text's own segment always has its [CLS] unmasked, so no such row
 * exists and the output is bit for bit the same (test/vectors/pruneNanGuards.test.ts). On all-MiniLM-L6-v2 the
 * guards were 15 % of a pass's CPU (a broadcasting Where over [heads, n, n] per layer; bench/minilm-profile.ts).
 * Returns the model unchanged (same bytes) when it has no such guard.
 */
export function pruneNanGuards(model: Uint8Array): { model: Uint8Array; pruned: number } {
  const top = parseFields(model);
  const g = top.findIndex((f) => f.no === MODEL_GRAPH && f.wire === 2);
  if (g < 0) return { model, pruned: 0 };
  const graph = parseFields(top[g].raw);
  const nodes: Node[] = graph
    .filter((f) => f.no === GRAPH_NODE && f.wire === 2)
    .map((field) => {
      const parts = parseFields(field.raw);
      const texts = (no: number) => parts.filter((p) => p.no === no && p.wire === 2).map(fieldText);
      return { field, parts, op: texts(NODE_OP)[0] ?? "", inputs: texts(NODE_INPUT), outputs: texts(NODE_OUTPUT) };
    });
  const producer = new Map<string, Node>();
  const readers = new Map<string, number>();
  // A graph output counts as a reader: a tensor the caller fetches is never dropped.
  for (const o of graph.filter((f) => f.no === GRAPH_OUTPUT && f.wire === 2)) {
    const name = parseFields(o.raw).find((p) => p.no === VALUE_NAME && p.wire === 2);
    if (name) readers.set(fieldText(name), 1);
  }
  for (const n of nodes) {
    for (const o of n.outputs) producer.set(o, n);
    for (const i of n.inputs) readers.set(i, (readers.get(i) ?? 0) + 1);
  }
  const replaced = new Map<Field, Field>();
  const dropped = new Set<Field>();
  for (const n of nodes) {
    if (n.op !== "Where" || n.inputs.length !== 3) continue;
    const [condition, , value] = n.inputs;
    const guard = producer.get(condition);
    if (guard?.op !== "IsNaN" || guard.inputs[0] !== value) continue;
    const rest = n.parts.filter((p) => p.no !== NODE_INPUT && p.no !== NODE_OP);
    replaced.set(n.field, messageField(GRAPH_NODE, [textField(NODE_INPUT, value), ...rest, textField(NODE_OP, "Identity")]));
    // The IsNaN goes too when the Where was its only reader.
    if (readers.get(condition) === 1) dropped.add(guard.field);
  }
  if (replaced.size === 0) return { model, pruned: 0 };
  const newGraph = graph.filter((f) => !dropped.has(f)).map((f) => replaced.get(f) ?? f);
  const newTop = top.map((f, i) => (i === g ? messageField(MODEL_GRAPH, newGraph) : f));
  return { model: serializeFields(newTop), pruned: replaced.size };
}
