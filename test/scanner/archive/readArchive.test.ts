import { afterAll, describe, expect, test } from "bun:test";
import { ArchiveError, readArchive } from "../../../src/scanner/archive/readArchive.ts";
import type { ArchiveLimits, ManifestEntry } from "../../../src/scanner/archive/types.ts";
import { randomBytes } from "node:crypto";
import { deflateSync } from "fflate";
import { buildZip, crc32, deflateZeros, sha256Hex, type ZipEntrySpec } from "../../support/zipBuilder.ts";
import { collector, listed, tempArchives } from "./helpers.ts";

const tmp = tempArchives();
afterAll(() => tmp.cleanup());

const GOOD = { path: "lore/good.md", data: "# The Old Mill\nGarrick's father built it." };
const zeros2MiB = deflateZeros(2 * 1024 * 1024);
// Incompressible: deflate falls back to stored blocks, which fflate buffers whole before yielding.
const noise = new Uint8Array(randomBytes(1024 * 1024));
const hello = new TextEncoder().encode("hello");
const helloThenJunk = { compressed: new Uint8Array([...deflateSync(hello), ...randomBytes(1024 * 1024)]), size: 5, crc32: crc32(hello) };

describe("readArchive accepts", () => {
  test("listed files with matching hashes, stored, deflated, with data descriptors, empty", async () => {
    const entries: ZipEntrySpec[] = [
      { path: "lore/", data: "" },
      GOOD,
      { path: "lore/stored.txt", data: "stored as is", method: 0 },
      { path: "dialogue/garrick.ink", data: "=== greet ===\nHello, traveller.", dataDescriptor: true },
      { path: "data/empty.json", data: "" },
      { path: "data/big.csv", data: "name,role\n" + "garrick,innkeeper\n".repeat(20_000) },
      { path: "data/noise.txt", data: noise },
    ];
    const manifest = entries.filter((e) => !e.path.endsWith("/")).map((e) => listed(e.path, e.data));
    const c = collector();
    const result = await readArchive(tmp.write(buildZip(entries)), manifest, c.onFile);
    expect(result).toEqual({ accepted: 6, rejected: [], missing: [] });
    expect(c.paths()).toEqual(manifest.map((m) => m.relativePath));
    expect(new TextDecoder().decode(c.files[2].bytes)).toBe("=== greet ===\nHello, traveller.");
    expect(c.files[4].bytes.length).toBe(manifest[4].sizeBytes);
    expect(sha256Hex(c.files[4].bytes)).toBe(manifest[4].contentHash);
    expect(c.files[5].bytes).toEqual(noise);
  });

  test("zip64 end records and extra fields", async () => {
    const entries = [GOOD, { path: "b.txt", data: "bee", method: 0 as const }];
    const c = collector();
    const result = await readArchive(
      tmp.write(buildZip(entries, { zip64: true, comment: "made by a test" })),
      entries.map((e) => listed(e.path, e.data)),
      c.onFile,
    );
    expect(result).toEqual({ accepted: 2, rejected: [], missing: [] });
  });

  test("names match the manifest after Unicode normalisation (macOS writes NFD)", async () => {
    const nfd = "lore/café.md".normalize("NFD");
    const c = collector();
    const result = await readArchive(tmp.write(buildZip([{ path: nfd, data: "x" }])), [listed("lore/café.md", "x")], c.onFile);
    expect(result.accepted).toBe(1);
    expect(c.paths()).toEqual(["lore/café.md"]);
  });

  test("upper-case manifest hashes", async () => {
    const m = listed(GOOD.path, GOOD.data);
    const result = await readArchive(tmp.write(buildZip([GOOD])), [{ ...m, contentHash: m.contentHash.toUpperCase() }], collector().onFile);
    expect(result.accepted).toBe(1);
  });

  test("reports manifest entries absent from the archive as missing", async () => {
    const result = await readArchive(
      tmp.write(buildZip([GOOD])),
      [listed(GOOD.path, GOOD.data), listed("lore/lost.md", "gone")],
      collector().onFile,
    );
    expect(result).toEqual({ accepted: 1, rejected: [], missing: ["lore/lost.md"] });
  });
});

interface Scenario {
  name: string;
  entries: ZipEntrySpec[];
  /** Manifest lines beyond those of GOOD; default: every entry listed with its true content. */
  manifest?: ManifestEntry[];
  limits?: Partial<ArchiveLimits>;
  rejected: Array<{ sourceFile: string; reason: string | RegExp }>;
  /** Accepted paths beyond GOOD (which every scenario carries, first). */
  accepted?: string[];
}

const innerZip = buildZip([{ path: "inner.txt", data: "hidden" }]);
const gzipped = Bun.gzipSync(new TextEncoder().encode("hidden lore"));
const tenKiB = "a".repeat(10 * 1024);

const scenarios: Scenario[] = [
  {
    name: "not listed in the manifest",
    entries: [{ path: "extra/notes.txt", data: "not declared" }],
    manifest: [],
    rejected: [{ sourceFile: "extra/notes.txt", reason: "not listed in manifest" }],
  },
  {
    name: "content differing from the manifest hash",
    entries: [{ path: "lore/swapped.md", data: "tampered" }],
    manifest: [listed("lore/swapped.md", "original")].map((m) => ({ ...m, sizeBytes: 8 })),
    rejected: [{ sourceFile: "lore/swapped.md", reason: "content hash does not match manifest" }],
  },
  {
    name: "size differing from the manifest",
    entries: [{ path: "lore/size.md", data: "twelve bytes" }],
    manifest: [{ ...listed("lore/size.md", "twelve bytes"), sizeBytes: 13 }],
    rejected: [{ sourceFile: "lore/size.md", reason: /^size does not match manifest/ }],
  },
  {
    name: "path traversal, absolute, drive and backslash paths",
    entries: [
      { path: "../evil.txt", data: "x" },
      { path: "lore/../../evil.txt", data: "x" },
      { path: "/etc/passwd.txt", data: "x" },
      { path: "C:/Windows/evil.txt", data: "x" },
      { path: "lore\\..\\..\\evil.txt", data: "x" },
      { path: "lore/./dot.txt", data: "x" },
      { path: "lore//empty.txt", data: "x" },
      { path: "lore/nul\u0000.txt", data: "x" },
    ],
    rejected: [
      { sourceFile: "../evil.txt", reason: "unsafe path" },
      { sourceFile: "lore/../../evil.txt", reason: "unsafe path" },
      { sourceFile: "/etc/passwd.txt", reason: "unsafe path" },
      { sourceFile: "C:/Windows/evil.txt", reason: "unsafe path" },
      { sourceFile: "lore\\..\\..\\evil.txt", reason: "unsafe path" },
      { sourceFile: "lore/./dot.txt", reason: "unsafe path" },
      { sourceFile: "lore//empty.txt", reason: "unsafe path" },
      { sourceFile: "lore/nul\u0000.txt", reason: "unsafe path" },
    ],
  },
  {
    name: "a name too long to be a lore path",
    entries: [{ path: `lore/${"x".repeat(2000)}.txt`, data: "x" }],
    manifest: [],
    rejected: [{ sourceFile: `lore/${"x".repeat(195)}…`, reason: "unsafe path" }],
  },
  {
    name: "symbolic links",
    entries: [{ path: "lore/link.md", data: "/etc/shadow", symlink: true }],
    rejected: [{ sourceFile: "lore/link.md", reason: "symbolic link" }],
  },
  {
    name: "encrypted entries",
    entries: [{ path: "lore/secret.md", data: "ciphertext", encrypted: true }],
    rejected: [{ sourceFile: "lore/secret.md", reason: "encrypted entry" }],
  },
  {
    name: "nested archives by extension",
    entries: [
      { path: "packs/more.zip", data: innerZip },
      { path: "packs/more.tar.gz", data: gzipped },
      { path: "packs/LIB.JAR", data: "x" },
      { path: "packs/x.7z", data: "x" },
      { path: "packs/x.rar", data: "x" },
      { path: "packs/x.tgz", data: "x" },
      { path: "packs/x.tar", data: "x" },
    ],
    rejected: ["more.zip", "more.tar.gz", "LIB.JAR", "x.7z", "x.rar", "x.tgz", "x.tar"].map((f) => ({
      sourceFile: `packs/${f}`,
      reason: "nested archive",
    })),
  },
  {
    name: "nested archives by magic bytes",
    entries: [
      { path: "lore/renamed.txt", data: innerZip },
      { path: "lore/renamed.json", data: gzipped },
      { path: "lore/renamed.md", data: new Uint8Array([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c, 0, 4]) },
    ],
    rejected: [
      { sourceFile: "lore/renamed.txt", reason: "nested archive" },
      { sourceFile: "lore/renamed.json", reason: "nested archive" },
      { sourceFile: "lore/renamed.md", reason: "nested archive" },
    ],
  },
  {
    name: "declared size over maxEntryBytes",
    entries: [{ path: "lore/huge.txt", data: "b".repeat(5000) }],
    limits: { maxEntryBytes: 4096 },
    rejected: [{ sourceFile: "lore/huge.txt", reason: /^decompression bomb: declared size 5000 bytes exceeds/ }],
  },
  {
    name: "compression ratio over maxRatio",
    entries: [{ path: "lore/zeros.txt", data: "", raw: zeros2MiB }],
    manifest: [{ relativePath: "lore/zeros.txt", sizeBytes: zeros2MiB.size, contentHash: "0".repeat(64) }],
    rejected: [{ sourceFile: "lore/zeros.txt", reason: /^decompression bomb: compression ratio \d+:1 exceeds the 200:1 limit$/ }],
  },
  {
    name: "inflating past the declared size (a lying header)",
    entries: [{ path: "lore/liar.txt", data: tenKiB, declaredSize: 100 }],
    manifest: [{ relativePath: "lore/liar.txt", sizeBytes: 100, contentHash: sha256Hex(tenKiB.slice(0, 100)) }],
    rejected: [{ sourceFile: "lore/liar.txt", reason: "decompression bomb: inflates past its declared size of 100 bytes" }],
  },
  {
    name: "total inflated bytes over maxTotalInflatedBytes stops the rest",
    entries: [
      { path: "lore/a.txt", data: "a".repeat(600) },
      { path: "lore/b.txt", data: "b".repeat(600) },
      { path: "lore/c.txt", data: "c" },
    ],
    limits: { maxTotalInflatedBytes: 1200 },
    accepted: ["lore/a.txt"],
    rejected: [
      { sourceFile: "lore/b.txt", reason: /^decompression bomb: archive exceeds the 1200-byte total inflated limit$/ },
      { sourceFile: "lore/c.txt", reason: /^decompression bomb: archive exceeds/ },
    ],
  },
  {
    name: "entries sharing one compressed kernel (overlap bomb)",
    entries: [
      { path: "lore/k1.txt", data: "kernel" },
      { path: "lore/k2.txt", data: "", pointsAt: "lore/k1.txt" },
    ],
    manifest: [listed("lore/k1.txt", "kernel"), listed("lore/k2.txt", "kernel")],
    rejected: [
      { sourceFile: "lore/k1.txt", reason: "decompression bomb: entry data overlaps another entry" },
      { sourceFile: "lore/k2.txt", reason: "decompression bomb: entry data overlaps another entry" },
    ],
  },
  {
    name: "unsupported compression methods",
    entries: [
      { path: "lore/bzip2.txt", data: "pretend", rawMethod: 12 },
      { path: "lore/lzma.txt", data: "pretend", rawMethod: 14 },
    ],
    rejected: [
      { sourceFile: "lore/bzip2.txt", reason: "unsupported compression method 12" },
      { sourceFile: "lore/lzma.txt", reason: "unsupported compression method 14" },
    ],
  },
  {
    name: "directories are ignored silently",
    entries: [{ path: "empty/", data: "" }, { path: "lore/deep/", data: "" }],
    manifest: [],
    rejected: [],
  },
  {
    name: "duplicate entries: the first is read, the second refused",
    entries: [
      { path: "lore/dup.md", data: "first" },
      { path: "lore/dup.md", data: "second" },
    ],
    manifest: [listed("lore/dup.md", "first")],
    accepted: ["lore/dup.md"],
    rejected: [{ sourceFile: "lore/dup.md", reason: "duplicate entry" }],
  },
  {
    name: "duplicates that differ only in Unicode normalisation",
    entries: [
      { path: "lore/café.md", data: "first" },
      { path: "lore/café.md".normalize("NFD"), data: "second" },
    ],
    manifest: [listed("lore/café.md", "first")],
    accepted: ["lore/café.md"],
    rejected: [{ sourceFile: "lore/café.md".normalize("NFD"), reason: "duplicate entry" }],
  },
  {
    name: "a local header naming another file",
    entries: [{ path: "lore/shown.md", localPath: "lore/other.md", data: "x" }],
    rejected: [{ sourceFile: "lore/shown.md", reason: /^corrupt entry: local header disagrees/ }],
  },
  {
    name: "a CRC-32 that does not match",
    entries: [{ path: "lore/crc.md", data: "payload", crc32: 1234 }],
    rejected: [{ sourceFile: "lore/crc.md", reason: "corrupt entry: CRC-32 mismatch" }],
  },
  {
    name: "invalid deflate data",
    entries: [{ path: "lore/garbage.md", data: "", raw: { compressed: new Uint8Array([0xff, 0xff, 0xff, 0xff]), size: 10, crc32: 0 } }],
    manifest: [{ relativePath: "lore/garbage.md", sizeBytes: 10, contentHash: "0".repeat(64) }],
    rejected: [{ sourceFile: "lore/garbage.md", reason: /^corrupt entry: invalid deflate data/ }],
  },
  {
    name: "compressed bytes trailing the end of the deflate stream",
    entries: [{ path: "lore/trailing.md", data: "", raw: helloThenJunk }],
    manifest: [listed("lore/trailing.md", hello)],
    rejected: [{ sourceFile: "lore/trailing.md", reason: "corrupt entry: compressed data continues past the end of the deflate stream" }],
  },
  {
    name: "inflating to less than the declared size",
    entries: [{ path: "lore/short.md", data: "short", declaredSize: 50 }],
    manifest: [{ relativePath: "lore/short.md", sizeBytes: 50, contentHash: "0".repeat(64) }],
    rejected: [{ sourceFile: "lore/short.md", reason: "corrupt entry: inflated to 5 bytes, central directory says 50" }],
  },
];

describe("readArchive rejects per entry and goes on", () => {
  for (const s of scenarios) {
    test(s.name, async () => {
      const entries = [GOOD, ...s.entries, { path: "lore/after.md", data: "still read" }];
      const manifest = [
        listed(GOOD.path, GOOD.data),
        ...(s.manifest ?? s.entries.map((e) => listed(e.path, e.data))),
        listed("lore/after.md", "still read"),
      ];
      const c = collector();
      const result = await readArchive(tmp.write(buildZip(entries)), manifest, c.onFile, { limits: s.limits });
      const budgetStopsAll = s.limits?.maxTotalInflatedBytes !== undefined;
      const expectedAccepted = [GOOD.path, ...(s.accepted ?? []), ...(budgetStopsAll ? [] : ["lore/after.md"])];
      expect(c.paths()).toEqual(expectedAccepted);
      expect(result.accepted).toBe(expectedAccepted.length);
      const expectedRejected = [...s.rejected];
      if (budgetStopsAll) expectedRejected.push({ sourceFile: "lore/after.md", reason: /^decompression bomb: archive exceeds/ });
      expect(result.rejected).toHaveLength(expectedRejected.length);
      expectedRejected.forEach((want, i) => {
        expect(result.rejected[i].sourceFile).toBe(want.sourceFile);
        if (typeof want.reason === "string") expect(result.rejected[i].reason).toBe(want.reason);
        else expect(result.rejected[i].reason).toMatch(want.reason);
      });
      expect(result.missing).toEqual([]);
    });
  }
});

describe("readArchive and onFile", () => {
  test("awaits onFile: calls are sequential and in archive order", async () => {
    const entries = Array.from({ length: 6 }, (_, i) => ({ path: `lore/${i}.md`, data: `file ${i}` }));
    let running = 0;
    let maxRunning = 0;
    const order: string[] = [];
    const result = await readArchive(
      tmp.write(buildZip(entries)),
      entries.map((e) => listed(e.path, e.data)),
      async (f) => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        await Bun.sleep(5);
        order.push(f.relativePath);
        running--;
      },
    );
    expect(result.accepted).toBe(6);
    expect(maxRunning).toBe(1);
    expect(order).toEqual(entries.map((e) => e.path));
  });

  test("an error from onFile propagates", async () => {
    const boom = new Error("index full");
    const p = readArchive(tmp.write(buildZip([GOOD])), [listed(GOOD.path, GOOD.data)], async () => {
      throw boom;
    });
    await expect(p).rejects.toBe(boom);
  });

  test("an abort stops the read", async () => {
    const entries = [GOOD, { path: "lore/2.md", data: "two" }];
    const controller = new AbortController();
    const seen: string[] = [];
    const p = readArchive(tmp.write(buildZip(entries)), entries.map((e) => listed(e.path, e.data)), async (f) => {
      seen.push(f.relativePath);
      controller.abort();
    }, { signal: controller.signal });
    await expect(p).rejects.toMatchObject({ name: "AbortError" });
    expect(seen).toEqual([GOOD.path]);
  });
});

describe("readArchive on an unreadable archive throws ArchiveError", () => {
  const good = buildZip([GOOD, { path: "b.md", data: "bee" }]);
  const cdOffset = new DataView(good.buffer).getUint32(good.length - 6, true);
  const badCentral = good.slice();
  badCentral[cdOffset] = 0x00;
  const cases: Array<[string, Uint8Array | null, RegExp, Partial<ArchiveLimits>?]> = [
    ["truncated (end record cut off)", good.subarray(0, good.length - 10), /end of central directory not found/],
    ["truncated (front half only)", good.subarray(0, good.length >> 1), /end of central directory not found/],
    ["not a zip at all", new TextEncoder().encode("just some lore text, not an archive ".repeat(10)), /not a ZIP/],
    ["empty file", new Uint8Array(0), /not a ZIP/],
    ["a broken central directory", badCentral, /corrupt ZIP central directory/],
    ["more entries than maxEntries", good, /2 entries, more than the limit of 1/, { maxEntries: 1 }],
    ["a missing file", null, /cannot open archive/],
  ];
  for (const [name, bytes, message, limits] of cases) {
    test(name, async () => {
      const path = bytes ? tmp.write(bytes) : tmp.path("does-not-exist.zip");
      const p = readArchive(path, [listed(GOOD.path, GOOD.data)], collector().onFile, { limits });
      await expect(p).rejects.toBeInstanceOf(ArchiveError);
      await expect(p).rejects.toThrow(message);
    });
  }
});
