/**
 * Just enough protobuf to edit an ONNX graph: a message as its list of fields, in order, each kept as its raw
 * bytes, and back. Fields nobody touches are written out byte for byte as they came, so a model passes through
 * unchanged except where an edit replaced a field.
 */
export interface Field {
  no: number;
  /** wire type: 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32 */
  wire: number;
  /** the value's bytes (for wire type 2: the payload, without its length) */
  raw: Uint8Array;
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

function readVarint(b: Uint8Array, at: number): [number, number] {
  let value = 0;
  let scale = 1;
  for (let p = at; p < b.length; p++) {
    value += (b[p] & 0x7f) * scale;
    if (!(b[p] & 0x80)) return [value, p + 1];
    scale *= 128;
  }
  throw new Error("protobuf: a varint runs past the end of the message");
}

function writeVarint(value: number, out: number[]): void {
  let v = value;
  do {
    let byte = v % 128;
    v = Math.floor(v / 128);
    if (v) byte |= 0x80;
    out.push(byte);
  } while (v);
}

/** The fields of one message. Throws on bytes that are not a protobuf message. */
export function parseFields(b: Uint8Array): Field[] {
  const fields: Field[] = [];
  let p = 0;
  while (p < b.length) {
    const [key, afterKey] = readVarint(b, p);
    const no = Math.floor(key / 8);
    const wire = key % 8;
    let start = afterKey;
    let end: number;
    if (wire === 0) end = readVarint(b, start)[1];
    else if (wire === 1) end = start + 8;
    else if (wire === 5) end = start + 4;
    else if (wire === 2) {
      const [length, afterLength] = readVarint(b, start);
      start = afterLength;
      end = start + length;
    } else throw new Error(`protobuf: unsupported wire type ${wire}`);
    if (end > b.length) throw new Error("protobuf: a field runs past the end of the message");
    fields.push({ no, wire, raw: b.subarray(start, end) });
    p = end;
  }
  return fields;
}

export function serializeFields(fields: Field[]): Uint8Array {
  const heads = fields.map((f) => {
    const head: number[] = [];
    writeVarint(f.no * 8 + f.wire, head);
    if (f.wire === 2) writeVarint(f.raw.length, head);
    return Uint8Array.from(head);
  });
  const out = new Uint8Array(fields.reduce((n, f, i) => n + heads[i].length + f.raw.length, 0));
  let p = 0;
  fields.forEach((f, i) => {
    out.set(heads[i], p);
    p += heads[i].length;
    out.set(f.raw, p);
    p += f.raw.length;
  });
  return out;
}

export const fieldText = (f: Field): string => decoder.decode(f.raw);
export const textField = (no: number, text: string): Field => ({ no, wire: 2, raw: encoder.encode(text) });
export const messageField = (no: number, fields: Field[]): Field => ({ no, wire: 2, raw: serializeFields(fields) });
export const varintField = (no: number, value: number): Field => {
  const raw: number[] = [];
  writeVarint(value, raw);
  return { no, wire: 0, raw: Uint8Array.from(raw) };
};
