/**
 * A hand-encoded ONNX model, y = x + x over float32[1, 4]: the smallest graph
 * that proves onnxruntime's native binding loads and computes. Protobuf field
 * numbers are from onnx/onnx.proto (ModelProto, GraphProto, NodeProto, ...).
 */
export function tinyOnnxModel(): Uint8Array {
  const tensorType = (name: string) =>
    message([
      string(1, name), // ValueInfoProto.name
      field(2, message([field(1, message([varint(1, 1 /* FLOAT */), field(2, message([dim(1), dim(4)]))]))])), // type.tensor_type{elem_type, shape}
    ]);
  const graph = message([
    field(1, message([string(1, "x"), string(1, "x"), string(2, "y"), string(3, "add"), string(4, "Add")])), // node
    string(2, "lorehold-probe"), // name
    field(11, tensorType("x")), // input
    field(12, tensorType("y")), // output
  ]);
  return message([
    varint(1, 8), // ir_version
    string(2, "lorehold"), // producer_name
    field(7, graph),
    field(8, message([string(1, ""), varint(2, 13)])), // opset_import{domain "", version 13}
  ]);
}

function dim(value: number): Uint8Array {
  return field(1, message([varint(1, value)])); // TensorShapeProto.dim{dim_value}
}

function varint(fieldNumber: number, value: number): Uint8Array {
  return concat([encodeVarint((fieldNumber << 3) | 0), encodeVarint(value)]);
}

function string(fieldNumber: number, value: string): Uint8Array {
  return field(fieldNumber, new TextEncoder().encode(value));
}

function field(fieldNumber: number, bytes: Uint8Array): Uint8Array {
  return concat([encodeVarint((fieldNumber << 3) | 2), encodeVarint(bytes.length), bytes]);
}

function message(parts: Uint8Array[]): Uint8Array {
  return concat(parts);
}

function encodeVarint(value: number): Uint8Array {
  const out: number[] = [];
  while (value > 0x7f) {
    out.push((value & 0x7f) | 0x80);
    value >>>= 7;
  }
  out.push(value);
  return Uint8Array.from(out);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}
