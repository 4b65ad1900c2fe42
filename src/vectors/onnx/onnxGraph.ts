import { type Field, fieldText, messageField, parseFields, serializeFields, textField, varintField } from "./protobufFields.ts";

// onnx.proto field numbers
export const MODEL = { opsetImport: 8, graph: 7 } as const;
export const GRAPH = { node: 1, initializer: 5, input: 11, output: 12, valueInfo: 13 } as const;
export const NODE = { input: 1, output: 2, name: 3, op: 4, attribute: 5, domain: 7 } as const;
export const TENSOR = { dims: 1, dataType: 2, name: 8, rawData: 9 } as const;
export const DTYPE = { float: 1, uint8: 2, int8: 3 } as const;

export interface GraphNode {
  field: Field;
  parts: Field[];
  name: string;
  op: string;
  domain: string;
  inputs: string[];
  outputs: string[];
}

export interface Initializer {
  field: Field;
  name: string;
  dataType: number;
  dims: number[];
  /** raw_data, when the tensor keeps its values there (every exporter does for large tensors) */
  raw: Uint8Array | null;
}

/** An ONNX model opened for editing: its top-level fields, its graph's fields, and views of nodes and initializers. */
export interface OnnxGraph {
  top: Field[];
  graph: Field[];
  nodes: GraphNode[];
  initializers: Map<string, Initializer>;
  /** tensor name → how many node inputs and graph outputs read it */
  readers: Map<string, number>;
  producer: Map<string, GraphNode>;
}

const texts = (parts: Field[], no: number) => parts.filter((p) => p.no === no && p.wire === 2).map(fieldText);

/** Repeated int64 dims, written packed (wire type 2) or one field each (wire type 0). */
function readDims(parts: Field[]): number[] {
  const dims: number[] = [];
  for (const p of parts.filter((f) => f.no === TENSOR.dims)) {
    if (p.wire === 0) dims.push(varintValue(p.raw));
    else for (let at = 0; at < p.raw.length; ) {
      let end = at;
      while (p.raw[end] & 0x80) end++;
      dims.push(varintValue(p.raw.subarray(at, end + 1)));
      at = end + 1;
    }
  }
  return dims;
}

function varintValue(raw: Uint8Array): number {
  let v = 0;
  for (let i = raw.length - 1; i >= 0; i--) v = v * 128 + (raw[i] & 0x7f);
  return v;
}

export function nodeOf(field: Field): GraphNode {
  const parts = parseFields(field.raw);
  return { field, parts, name: texts(parts, NODE.name)[0] ?? "", op: texts(parts, NODE.op)[0] ?? "", domain: texts(parts, NODE.domain)[0] ?? "", inputs: texts(parts, NODE.input), outputs: texts(parts, NODE.output) };
}

/** Null when the bytes hold no graph. Throws on bytes that are not a protobuf message. */
export function openGraph(model: Uint8Array): OnnxGraph | null {
  const top = parseFields(model);
  const g = top.find((f) => f.no === MODEL.graph && f.wire === 2);
  if (!g) return null;
  const graph = parseFields(g.raw);
  const nodes = graph.filter((f) => f.no === GRAPH.node && f.wire === 2).map(nodeOf);
  const initializers = new Map<string, Initializer>();
  for (const field of graph.filter((f) => f.no === GRAPH.initializer && f.wire === 2)) {
    const parts = parseFields(field.raw);
    const name = texts(parts, TENSOR.name)[0] ?? "";
    const type = parts.find((p) => p.no === TENSOR.dataType && p.wire === 0);
    const raw = parts.find((p) => p.no === TENSOR.rawData && p.wire === 2);
    initializers.set(name, { field, name, dataType: type ? varintValue(type.raw) : 0, dims: readDims(parts), raw: raw?.raw ?? null });
  }
  const readers = new Map<string, number>();
  const producer = new Map<string, GraphNode>();
  // A graph output counts as a reader: a tensor the caller fetches is never dropped.
  for (const o of graph.filter((f) => f.no === GRAPH.output && f.wire === 2)) {
    const name = texts(parseFields(o.raw), 1)[0];
    if (name) readers.set(name, 1);
  }
  for (const n of nodes) {
    for (const o of n.outputs) producer.set(o, n);
    for (const i of n.inputs) if (i) readers.set(i, (readers.get(i) ?? 0) + 1);
  }
  return { top, graph, nodes, initializers, readers, producer };
}

export const tensorField = (name: string, dataType: number, dims: number[], raw: Uint8Array): Field =>
  messageField(GRAPH.initializer, [...dims.map((d) => varintField(TENSOR.dims, d)), varintField(TENSOR.dataType, dataType), textField(TENSOR.name, name), { no: TENSOR.rawData, wire: 2, raw }]);

export const nodeField = (op: string, domain: string, name: string, inputs: string[], outputs: string[]): Field =>
  messageField(GRAPH.node, [...inputs.map((i) => textField(NODE.input, i)), ...outputs.map((o) => textField(NODE.output, o)), textField(NODE.name, name), textField(NODE.op, op), ...(domain ? [textField(NODE.domain, domain)] : [])]);

/**
 * The model with its graph's fields replaced by `graph` and, if `domain` is given and not yet imported, an opset import
 * of it (a contrib op's domain must be declared for ONNX Runtime to resolve its nodes).
 */
export function writeModel(g: OnnxGraph, graph: Field[], domain?: { name: string; version: number }): Uint8Array {
  const imported = g.top.filter((f) => f.no === MODEL.opsetImport && f.wire === 2).some((f) => texts(parseFields(f.raw), 1)[0] === domain?.name);
  const top = g.top.map((f) => (f.no === MODEL.graph && f.wire === 2 ? messageField(MODEL.graph, graph) : f));
  if (domain && !imported) top.push(messageField(MODEL.opsetImport, [textField(1, domain.name), varintField(2, domain.version)]));
  return serializeFields(top);
}

/**
 * `graph` without the initializers and value_info of tensors no node reads or writes any longer (left behind when
 * nodes were replaced); graph inputs and outputs are kept.
 */
export function dropOrphans(graph: Field[]): Field[] {
  const used = new Set<string>();
  for (const f of graph) {
    if (f.no === GRAPH.node && f.wire === 2) {
      const n = nodeOf(f);
      for (const t of [...n.inputs, ...n.outputs]) used.add(t);
    } else if ((f.no === GRAPH.input || f.no === GRAPH.output) && f.wire === 2) used.add(texts(parseFields(f.raw), 1)[0] ?? "");
  }
  return graph.filter((f) => {
    if (f.wire !== 2) return true;
    if (f.no === GRAPH.initializer) return used.has(texts(parseFields(f.raw), TENSOR.name)[0] ?? "");
    if (f.no === GRAPH.valueInfo) return used.has(texts(parseFields(f.raw), 1)[0] ?? "");
    return true;
  });
}
