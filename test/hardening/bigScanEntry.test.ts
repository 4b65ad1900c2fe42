/**
 * One 30 MB text file in a scan archive took the server to 683 MB RSS. A big
 * plain-text or Markdown entry is now extracted a piece at a time (src/scanner/worker/entryPieces.ts).
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { grantTopUp } from "../../src/credits/ledger.ts";
import { forEachTextPiece, PIECE_BYTES } from "../../src/scanner/worker/entryPieces.ts";
import { job, runWorker, scanFixture, submitAndUpload, type ScanFixture } from "../scanner/service/scanSupport.ts";
import { bigLoreText } from "./bigEntry.ts";

setDefaultTimeout(180_000);
const enc = new TextEncoder();

/** Peak RSS since the last reset (Linux: VmHWM, reset through /proc/self/clear_refs), in MB; null elsewhere. */
function resetPeak(): boolean {
  try {
    writeFileSync("/proc/self/clear_refs", "5");
    return true;
  } catch {
    return false;
  }
}
const peakMb = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))![1]) / 1024;

describe("forEachTextPiece", () => {
  const pieces = (path: string, bytes: Uint8Array) => {
    const out: Uint8Array[] = [];
    forEachTextPiece(path, bytes, (p) => out.push(p));
    return out;
  };
  const text = enc.encode(bigLoreText(7));

  test("a 7 MB .txt: pieces of at most PIECE_BYTES, cut after a blank line, together the whole entry", () => {
    const ps = pieces("lore/big.txt", text);
    expect(ps.length).toBeGreaterThanOrEqual(4);
    expect(ps.reduce((n, p) => n + p.length, 0)).toBe(text.length);
    for (const p of ps.slice(0, -1)) {
      expect(p.length).toBeLessThanOrEqual(PIECE_BYTES);
      expect([p[p.length - 2], p[p.length - 1]]).toEqual([0x0a, 0x0a]);
    }
    expect(Buffer.concat(ps).equals(Buffer.from(text))).toBe(true);
  });

  test.each([
    ["small.txt", 1000, 1],
    ["big.json", 7, 1], // structured: stays whole
    ["big.md", 7, 4],
  ])("%s → pieces", (name, mb, atLeast) => {
    const bytes = mb === 1000 ? enc.encode("short\n\ntext") : text;
    const ps = pieces(name, bytes);
    expect(ps.length).toBeGreaterThanOrEqual(atLeast);
    if (atLeast === 1) expect(ps.length).toBe(1);
  });

  test("no newline at all: cut on a UTF-8 character boundary", () => {
    const bytes = enc.encode("é".repeat(PIECE_BYTES)); // 2 bytes each
    const ps = pieces("one-line.txt", bytes);
    expect(ps.length).toBe(2);
    expect(new TextDecoder("utf-8", { fatal: true }).decode(ps[0])).toBe("é".repeat(PIECE_BYTES / 2));
  });

  test("UTF-16 entries stay whole (their bytes cannot be cut at 0x0A)", () => {
    const bytes = new Uint8Array(PIECE_BYTES * 2 + 2);
    bytes[0] = 0xff;
    bytes[1] = 0xfe;
    expect(pieces("utf16.txt", bytes).length).toBe(1);
  });
});

describe("a 30 MB text entry in a scan", () => {
  let f: ScanFixture;
  beforeAll(async () => {
    f = await scanFixture();
    grantTopUp(f.t.app.ctx, f.w.teamId, 1e12);
  });
  afterAll(() => f.close());

  test("is processed (COMPLETED, extractions from all of it) with a bounded RSS rise", async () => {
    const text = bigLoreText(30);
    const { jobId } = await submitAndUpload(f, [{ path: "lore/big.txt", data: text }]);
    Bun.gc(true);
    const idle = process.memoryUsage().rss / 1024 / 1024;
    const measured = resetPeak();
    const status = await runWorker(f);
    expect(status.lastError).toBeNull();
    const j = await job(f, jobId);
    expect(j.body.status).toBe("COMPLETED");
    expect(new Set(j.body.extractions.flatMap((e: any) => e.sourceFiles))).toEqual(new Set(["lore/big.txt"]));
    expect(j.body.extractions.length).toBeGreaterThan(5000); // the whole file, not its first piece
    if (!measured) return console.warn("bigScanEntry: /proc/self/clear_refs unavailable: the RSS bound is not checked on this system");
    const rise = peakMb() - idle;
    console.log(`30 MB text entry: peak RSS rise ${Math.round(rise)} MB`);
    expect(rise).toBeLessThan(200); // extracted whole it rose ~340 MB
  });
});
