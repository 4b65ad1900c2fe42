import { readFileSync } from "node:fs";
import { arch, platform } from "node:os";
import type { Int8Weights } from "./int8MatMuls.ts";

let cached: Int8Weights | null = null;

/**
 * Which integer GEMM suits this CPU. ONNX Runtime's u8×s8 kernels on x86-64 without VNNI (AVX2, AVX-512BW) add
 * pairs of 8-bit products in 16 bits (`vpmaddubsw`) and can saturate there, a known loss of accuracy; with VNNI
 * (`avx512_vnni`, `avx_vnni`) or AMX the products are summed in 32 bits, and on ARM64 the dot-product kernels
 * never saturate. Elsewhere the weights go unsigned (u8×u8), which ONNX Runtime widens to 16 bits before it
 * multiplies: no saturation on any CPU. Both give the same vectors (within float rounding) where neither
 * saturates; s8 is ~2× faster than the float graph with VNNI/AMX, u8 is not there (bench/minilm-int8.ts).
 */
export function int8WeightsForThisCpu(): Int8Weights {
  if (cached) return cached;
  cached = "u8";
  if (arch() === "arm64") cached = "s8";
  else if (arch() === "x64" && platform() === "linux") {
    try {
      const flags = readFileSync("/proc/cpuinfo", "utf8").match(/^flags\s*:(.*)$/m)?.[1].split(/\s+/) ?? [];
      if (flags.some((f) => f === "avx512_vnni" || f === "avx_vnni" || f === "amx_int8")) cached = "s8";
    } catch {
      // no /proc: stay with the kernels that never saturate
    }
  }
  return cached;
}
