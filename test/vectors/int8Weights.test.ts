import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { arch } from "node:os";
import { int8WeightsForThisCpu } from "../../src/vectors/onnx/int8Weights.ts";

// u8×s8 only where the CPU sums 8-bit products in 32 bits (VNNI, AMX, ARM64 dot products); u8×u8 elsewhere, which
// never saturates. Checked against this machine's own flags, whatever CPU runs the test.
describe("int8WeightsForThisCpu", () => {
  test("signed weights exactly when the CPU has VNNI or AMX (x86-64 Linux) or is ARM64", () => {
    const choice = int8WeightsForThisCpu();
    if (arch() === "arm64") expect(choice).toBe("s8");
    else if (arch() === "x64" && existsSync("/proc/cpuinfo")) {
      const flags = new Set(readFileSync("/proc/cpuinfo", "utf8").match(/^flags\s*:(.*)$/m)?.[1].trim().split(/\s+/));
      expect(choice).toBe(flags.has("avx512_vnni") || flags.has("avx_vnni") || flags.has("amx_int8") ? "s8" : "u8");
    } else expect(choice).toBe("u8");
  });
});
