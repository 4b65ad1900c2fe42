import { describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { SubmitBody } from "../../src/scanner/scannerSchemas.ts";
import { validateSubmission } from "../../src/scanner/manifest.ts";
import { SCANNER_LIMITS as L } from "../../src/scanner/limits.ts";
import { accepts as acceptsOf } from "../support/accepts.ts";

const hash = "ab".repeat(32);
const file = { filename: "a.md", relativePath: "lore/a.md", sizeBytes: 10, contentHash: hash };
const ok = { files: [file], totalSizeBytes: 100 };
const accepts = acceptsOf(validateSubmission);

/** The submit body's model (Swagger's) and validateSubmission agree on each shape; paths and extensions are the validator's own. */
const BODIES: Array<[string, unknown]> = [
  ["minimal", ok],
  ["with context and key", { ...ok, userContext: "a game", idempotencyKey: "k1" }],
  ["null optionals", { ...ok, userContext: null, idempotencyKey: null }],
  ["no files", { ...ok, files: [] }],
  ["files missing", { totalSizeBytes: 1 }],
  ["unknown field", { ...ok, extra: 1 }],
  ["unknown file field", { ...ok, files: [{ ...file, mode: 1 }] }],
  ["empty filename", { ...ok, files: [{ ...file, filename: "" }] }],
  ["filename past limit", { ...ok, files: [{ ...file, filename: "a".repeat(L.filenameChars + 1) }] }],
  ["negative size", { ...ok, files: [{ ...file, sizeBytes: -1 }] }],
  ["fractional size", { ...ok, files: [{ ...file, sizeBytes: 1.5 }] }],
  ["bad hash", { ...ok, files: [{ ...file, contentHash: "xyz" }] }],
  ["zero total", { ...ok, totalSizeBytes: 0 }],
  ["total past 200 MB", { ...ok, totalSizeBytes: L.maxArchiveBytes + 1 }],
  ["context past limit", { ...ok, userContext: "a".repeat(L.userContextChars + 1) }],
  ["empty idempotency key", { ...ok, idempotencyKey: "" }],
  ["key past limit", { ...ok, idempotencyKey: "k".repeat(L.idempotencyKeyChars + 1) }],
];

describe("the submit-archive body's one model", () => {
  for (const [name, body] of BODIES) {
    test(`model and validator agree: ${name}`, () => {
      expect(Value.Check(SubmitBody, body)).toBe(accepts(body));
    });
  }

  test("validated bodies are read through the model's static type (hash lower-cased, optionals null)", () => {
    const s = validateSubmission({ ...ok, files: [{ ...file, contentHash: hash.toUpperCase() }] });
    expect(s).toEqual({ files: [file], totalSizeBytes: 100, userContext: null, idempotencyKey: null });
  });
});
