import { afterAll, describe, expect, test } from "bun:test";
import { isReadableZip } from "../../../src/scanner/archive/isZip.ts";
import { buildZip } from "../../support/zipBuilder.ts";
import { tempArchives } from "./helpers.ts";

const tmp = tempArchives();
afterAll(() => tmp.cleanup());

const valid = buildZip([{ path: "lore/a.md", data: "alpha" }, { path: "lore/b.md", data: "beta", method: 0 }]);

describe("isReadableZip", () => {
  const cases: Array<[string, Uint8Array | null, boolean]> = [
    ["a valid zip", valid, true],
    ["a valid zip with a comment", buildZip([{ path: "a.md", data: "a" }], { comment: "PK\u0005\u0006 inside a comment" }), true],
    ["a zip64 archive", buildZip([{ path: "a.md", data: "a" }], { zip64: true }), true],
    ["an empty zip", buildZip([]), true],
    ["a truncated zip (tail cut)", valid.subarray(0, valid.length - 5), false],
    ["a truncated zip (first half)", valid.subarray(0, valid.length >> 1), false],
    ["a zip whose central directory is cut", (() => {
      // Keep the end record but point it past a shortened central directory.
      const z = valid.slice();
      new DataView(z.buffer).setUint32(z.length - 10, 10_000, true);
      return z;
    })(), false],
    ["a text file", new TextEncoder().encode("Once upon a time in Thornhaven...\n".repeat(100)), false],
    ["an empty file", new Uint8Array(0), false],
    ["a gzip file", Bun.gzipSync(new TextEncoder().encode("lore")), false],
    ["a missing file", null, false],
  ];
  for (const [name, bytes, expected] of cases) {
    test(name, async () => {
      const path = bytes ? tmp.write(bytes) : tmp.path("nope.zip");
      expect(await isReadableZip(path)).toBe(expected);
    });
  }
});
