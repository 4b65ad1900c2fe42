/**
 * The bytes of a memory's vector copy (memory_vectors.vector), told apart by their length for `dims` dimensions:
 *   dims × 4  float32: copies written before the copy shrank, read as they are;
 *   dims × 2  float16: what is written now (half the bytes; a cosine moves by ~1e-4, and the ranking of a
 *             pair's memories stays the float32's: BENCHMARKS.md "Big worlds: RSS at 100k chunks");
 *   dims + 4  int8 with one float32 scale: a quarter of the bytes, read if found, measured but not written (it
 *             reorders more of the rankings, see the same section).
 * A vector of any other length is not a copy of this embedder's (null: the group reads LanceDB).
 */
export type CopyFormat = "f32" | "f16" | "i8";

/** The format new copies are written in. */
export const COPY_FORMAT: CopyFormat = "f16";

export function encodeVector(v: ArrayLike<number>, format: CopyFormat = COPY_FORMAT): Uint8Array {
  if (format === "f32") {
    const f = v instanceof Float32Array ? v : Float32Array.from(v);
    return new Uint8Array(f.buffer, f.byteOffset, f.byteLength);
  }
  if (format === "f16") {
    const h = Float16Array.from(v);
    return new Uint8Array(h.buffer);
  }
  let max = 0;
  for (let i = 0; i < v.length; i++) max = Math.max(max, Math.abs(v[i]));
  const out = new Uint8Array(v.length + 4);
  const q = new Int8Array(out.buffer, 0, v.length);
  const scale = max > 0 ? max / 127 : 0;
  for (let i = 0; i < v.length; i++) q[i] = scale > 0 ? Math.round(v[i] / scale) : 0;
  new DataView(out.buffer).setFloat32(v.length, scale, true);
  return out;
}

/** The vector a copy holds, as float32 (a fresh buffer: SQLite's need not be aligned), or null if not `dims` long. */
export function decodeVector(bytes: Uint8Array, dims: number): Float32Array | null {
  if (bytes.byteLength === dims * 4) return new Float32Array(bytes.slice().buffer);
  if (bytes.byteLength === dims * 2) return Float32Array.from(new Float16Array(bytes.slice().buffer));
  if (bytes.byteLength === dims + 4) {
    const scale = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getFloat32(dims, true);
    const q = new Int8Array(bytes.buffer, bytes.byteOffset, dims);
    const out = new Float32Array(dims);
    for (let i = 0; i < dims; i++) out[i] = q[i] * scale;
    return out;
  }
  return null;
}
