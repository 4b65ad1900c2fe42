// The int8 row scan's inner loop, variant by variant, side by side in one process: 10,000 rows of 384 int8 codes
// against a float query, (a) the rows scattered over 500 blocks of 20 in random order, as a document-ordered cache
// holds them, and (b) the same rows end to end, as the IVF index now holds a list (ivfLists.ts). Variants: one
// accumulator; four (the index's); four with the query as float64; eight; four rows at once sharing the query's
// loads; the codes read four at a time from an Int32Array; integer arithmetic with an int8-quantised query.
// Usage: bun bench/ivf-dot.ts [--rows 10000]
import { availableParallelism, cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";

const { values: args } = parseArgs({ options: { rows: { type: "string", default: "10000" } } });
const dims = 384;
const rows = Number(args.rows);
let seed = 7;
const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296) * 2 - 1;
const blocks: Int8Array[] = [];
for (let b = 0; b < rows / 20; b++) blocks.push(Int8Array.from({ length: 20 * dims }, () => Math.round(rnd() * 127)));
const order = Int32Array.from({ length: rows }, (_, i) => i);
for (let i = rows - 1; i > 0; i--) {
  const j = Math.floor(((rnd() + 1) / 2) * (i + 1)) % (i + 1);
  [order[i], order[j]] = [order[j], order[i]];
}
const flat = new Int8Array(rows * dims);
order.forEach((i, j) => flat.set(blocks[(i / 20) | 0].subarray((i % 20) * dims, (i % 20 + 1) * dims), j * dims));
const q = Float32Array.from({ length: dims }, () => rnd() / 8);
const q64 = Float64Array.from(q);
const qi = Int32Array.from(q, (x) => Math.round((x * 127) / 0.125));
const out = new Float64Array(rows);
const at = (j: number) => order[j];
const blockOf = (i: number) => blocks[(i / 20) | 0];
const baseOf = (i: number) => (i % 20) * dims;

type Read = (j: number) => [Int8Array, number];
const scattered: Read = (j) => [blockOf(at(j)), baseOf(at(j))];
const inOrder: Read = (j) => [flat, j * dims];

const variants: Record<string, (read: Read) => void> = {
  "one accumulator": (read) => {
    for (let j = 0; j < rows; j++) {
      const [c, b] = read(j);
      let s = 0;
      for (let d = 0; d < dims; d++) s += q[d] * c[b + d];
      out[j] = s;
    }
  },
  "four accumulators": (read) => {
    for (let j = 0; j < rows; j++) {
      const [c, b] = read(j);
      let a0 = 0, a1 = 0, a2 = 0, a3 = 0;
      for (let d = 0; d < dims; d += 4) {
        a0 += q[d] * c[b + d];
        a1 += q[d + 1] * c[b + d + 1];
        a2 += q[d + 2] * c[b + d + 2];
        a3 += q[d + 3] * c[b + d + 3];
      }
      out[j] = a0 + a1 + a2 + a3;
    }
  },
  "four, query as float64 (the index's)": (read) => {
    for (let j = 0; j < rows; j++) {
      const [c, b] = read(j);
      let a0 = 0, a1 = 0, a2 = 0, a3 = 0;
      for (let d = 0; d < dims; d += 4) {
        a0 += q64[d] * c[b + d];
        a1 += q64[d + 1] * c[b + d + 1];
        a2 += q64[d + 2] * c[b + d + 2];
        a3 += q64[d + 3] * c[b + d + 3];
      }
      out[j] = a0 + a1 + a2 + a3;
    }
  },
  "eight accumulators": (read) => {
    for (let j = 0; j < rows; j++) {
      const [c, b] = read(j);
      let a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;
      for (let d = 0; d < dims; d += 8) {
        a0 += q64[d] * c[b + d];
        a1 += q64[d + 1] * c[b + d + 1];
        a2 += q64[d + 2] * c[b + d + 2];
        a3 += q64[d + 3] * c[b + d + 3];
        a4 += q64[d + 4] * c[b + d + 4];
        a5 += q64[d + 5] * c[b + d + 5];
        a6 += q64[d + 6] * c[b + d + 6];
        a7 += q64[d + 7] * c[b + d + 7];
      }
      out[j] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
    }
  },
  "four rows at once": (read) => {
    for (let j = 0; j + 3 < rows; j += 4) {
      const [c0, b0] = read(j);
      const [c1, b1] = read(j + 1);
      const [c2, b2] = read(j + 2);
      const [c3, b3] = read(j + 3);
      let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      for (let d = 0; d < dims; d++) {
        const x = q64[d];
        s0 += x * c0[b0 + d];
        s1 += x * c1[b1 + d];
        s2 += x * c2[b2 + d];
        s3 += x * c3[b3 + d];
      }
      out[j] = s0;
      out[j + 1] = s1;
      out[j + 2] = s2;
      out[j + 3] = s3;
    }
  },
  "integer arithmetic, int8 query": (read) => {
    for (let j = 0; j < rows; j++) {
      const [c, b] = read(j);
      let a0 = 0, a1 = 0, a2 = 0, a3 = 0;
      for (let d = 0; d < dims; d += 4) {
        a0 = (a0 + qi[d] * c[b + d]) | 0;
        a1 = (a1 + qi[d + 1] * c[b + d + 1]) | 0;
        a2 = (a2 + qi[d + 2] * c[b + d + 2]) | 0;
        a3 = (a3 + qi[d + 3] * c[b + d + 3]) | 0;
      }
      out[j] = a0 + a1 + a2 + a3;
    }
  },
};

console.log(`\n${availableParallelism()} cores (${cpus()[0]?.model}), load ${loadavg()[0].toFixed(1)}; Bun ${Bun.version}; ${rows.toLocaleString("en")} rows × ${dims} int8, CPU ms a pass (best of 3 rounds of 20 passes)\n`);
console.log("| inner loop | rows scattered over documents | rows in list order | ÷ |\n|---|---|---|---|");
for (const [name, f] of Object.entries(variants)) {
  const time = (read: Read) => {
    for (let i = 0; i < 5; i++) f(read);
    let best = Infinity;
    for (let round = 0; round < 3; round++) {
      const c0 = process.cpuUsage();
      for (let i = 0; i < 20; i++) f(read);
      const c = process.cpuUsage(c0);
      best = Math.min(best, (c.user + c.system) / 1000 / 20);
    }
    return best;
  };
  const a = time(scattered);
  const b = time(inOrder);
  console.log(`| ${name} | ${a.toFixed(2)} | ${b.toFixed(2)} | ${(a / b).toFixed(2)} |`);
}
