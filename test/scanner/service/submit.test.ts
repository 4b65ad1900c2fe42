import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dataPaths } from "../../../src/config/config.ts";
import { getProjectBalance, setPlan } from "../../../src/credits/ledger.ts";
import { uploadPath } from "../../../src/scanner/uploadStore.ts";
import { sha256Hex } from "../../support/zipBuilder.ts";
import { buildWorld } from "../../support/world.ts";
import { job, LORE, manifestOf, put, runWorker, scanFixture, submitAndUpload, zipOf, type ScanFixture } from "./scanSupport.ts";

let f: ScanFixture;
beforeAll(async () => {
  f = await scanFixture();
});
afterAll(() => f.close());

const MB200 = 200 * 1024 * 1024;
const good = { filename: "lore.md", relativePath: "docs/lore.md", sizeBytes: 10, contentHash: sha256Hex("x") };
const submit = (body: unknown, key: string | null = f.w.keys.editor) => f.t.call("POST", "/v1/scanner/submit-archive", { key, body });
const submitRaw = (rawBody: string) => f.t.call("POST", "/v1/scanner/submit-archive", { key: f.w.keys.editor, rawBody });

describe("submit-archive: manifest validation", () => {
  const invalid: [string, unknown, RegExp][] = [
    ["files missing", { totalSizeBytes: 100 }, /^files: required/],
    ["files empty", { files: [], totalSizeBytes: 100 }, /^files: must list at least one file/],
    ["a file that is not an object", { files: ["lore.md"], totalSizeBytes: 100 }, /^files\[0\]: must be an object/],
    ["filename missing", { files: [{ ...good, filename: undefined }], totalSizeBytes: 100 }, /^files\[0\]\.filename: required/],
    ["relativePath with ..", { files: [{ ...good, relativePath: "docs/../../etc/x.md" }], totalSizeBytes: 100 }, /^files\[0\]\.relativePath: must be a relative path/],
    ["absolute relativePath", { files: [{ ...good, relativePath: "/etc/x.md" }], totalSizeBytes: 100 }, /^files\[0\]\.relativePath: must be a relative path/],
    ["drive relativePath", { files: [{ ...good, relativePath: "C:/game/x.md" }], totalSizeBytes: 100 }, /^files\[0\]\.relativePath: must be a relative path/],
    ["backslash relativePath", { files: [{ ...good, relativePath: "docs\\x.md" }], totalSizeBytes: 100 }, /^files\[0\]\.relativePath: must be a relative path/],
    ["empty segment", { files: [{ ...good, relativePath: "docs//x.md" }], totalSizeBytes: 100 }, /^files\[0\]\.relativePath: must be a relative path/],
    ["hash not SHA-256 hex", { files: [{ ...good, contentHash: "abc" }], totalSizeBytes: 100 }, /^files\[0\]\.contentHash: required, the file's SHA-256/],
    ["negative size", { files: [{ ...good, sizeBytes: -1 }], totalSizeBytes: 100 }, /^files\[0\]\.sizeBytes: required, a whole number/],
    ["fractional size", { files: [{ ...good, sizeBytes: 1.5 }], totalSizeBytes: 100 }, /^files\[0\]\.sizeBytes/],
    ["duplicate paths", { files: [good, { ...good, filename: "again.md" }], totalSizeBytes: 100 }, /^files\[1\]\.relativePath: duplicate of files\[0\]/],
    ["unknown file field", { files: [{ ...good, mtime: 1 }], totalSizeBytes: 100 }, /^files\[0\]\.mtime: unknown field/],
    ["unknown top-level field", { files: [good], totalSizeBytes: 100, priority: "high" }, /^priority: unknown field/],
    ["totalSizeBytes missing", { files: [good] }, /^totalSizeBytes: required/],
    ["totalSizeBytes zero", { files: [good], totalSizeBytes: 0 }, /^totalSizeBytes: required/],
    ["userContext too long", { files: [good], totalSizeBytes: 100, userContext: "x".repeat(5001) }, /^userContext: at most 5000 characters/],
    ["idempotencyKey not a string", { files: [good], totalSizeBytes: 100, idempotencyKey: 7 }, /^idempotencyKey: must be a non-empty string/],
  ];
  for (const [name, body, detail] of invalid) {
    test(`${name} → 400 Invalid manifest naming it`, async () => {
      const r = await submit(body);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("Invalid manifest");
      expect(r.body.details.some((d: string) => detail.test(d))).toBe(true);
    });
  }
  test("every problem is named at once", async () => {
    const r = await submit({ files: [{ ...good, contentHash: "no" }, { ...good, relativePath: "../x.md" }], totalSizeBytes: -5, extra: 1 });
    expect(r.status).toBe(400);
    expect(r.body.details).toEqual(expect.arrayContaining([
      "extra: unknown field",
      expect.stringMatching(/^files\[0\]\.contentHash/),
      expect.stringMatching(/^files\[1\]\.relativePath/),
      expect.stringMatching(/^totalSizeBytes/),
    ]));
  });
  test("more than 5,000 files → Invalid manifest", async () => {
    const files = Array.from({ length: 5001 }, (_, i) => ({ ...good, relativePath: `f${i}.md` }));
    const r = await submit({ files, totalSizeBytes: 100 });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: "Invalid manifest", details: ["files: at most 5000 files"] });
  });
  test("malformed JSON → Invalid manifest", async () => {
    expect(await submitRaw("{nope")).toMatchObject({ status: 400, body: { error: "Invalid manifest" } });
    expect(await submitRaw("[1,2]")).toMatchObject({ status: 400, body: { error: "Invalid manifest" } });
  });
  test("totalSizeBytes over 200 MB → Archive too large; exactly 200 MB is accepted", async () => {
    const r = await submit({ files: [good], totalSizeBytes: MB200 + 1 });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("Archive too large");
    expect((await submit({ files: [good], totalSizeBytes: MB200 })).status).toBe(202);
  });
  test("unsupported extensions → Invalid file types in manifest, with rejectedFiles and the 29 allowedExtensions", async () => {
    const files = [good, { ...good, relativePath: "bin/game.exe" }, { ...good, relativePath: "art/hero.PNG" }, { ...good, relativePath: "README" }];
    const r = await submit({ files, totalSizeBytes: 100 });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("Invalid file types in manifest");
    expect(r.body.rejectedFiles).toEqual(["bin/game.exe", "art/hero.PNG", "README"]);
    expect(r.body.allowedExtensions).toHaveLength(29);
    expect(r.body.allowedExtensions).toEqual(expect.arrayContaining([".md", ".ink", ".yarn", ".twee", ".rpy", ".asset", ".tscn", ".dtl", ".xliff", ".resx"]));
    // Upper-case extensions of allowed types pass.
    expect((await submit({ files: [{ ...good, relativePath: "docs/LORE.MD" }], totalSizeBytes: 100 })).status).toBe(202);
  });
  test("userContext of exactly 5,000 characters is accepted; no key → 401 before any validation", async () => {
    expect((await submit({ files: [good], totalSizeBytes: 100, userContext: "y".repeat(5000) })).status).toBe(202);
    expect(await submit({ nonsense: true }, null)).toMatchObject({ status: 401, body: { error: "Invalid authentication" } });
    expect(await submit({ files: [good], totalSizeBytes: 100 }, f.w.keys.server)).toMatchObject({ status: 401 });
  });
});

describe("submit-archive: the 202 answer, credits and idempotency", () => {
  test("202 PENDING_UPLOAD with a signed upload URL; nothing charged", async () => {
    const before = getProjectBalance(f.t.app.ctx, f.w.projectId).available;
    const r = await submit({ files: [good, { ...good, relativePath: "b.json" }], totalSizeBytes: 100 });
    expect(r.status).toBe(202);
    expect(Object.keys(r.body).sort()).toEqual(["estimatedCredits", "expiresIn", "jobId", "status", "totalFiles", "uploadUrl"]);
    expect(r.body).toMatchObject({ status: "PENDING_UPLOAD", expiresIn: 1800, totalFiles: 2, estimatedCredits: 20 / 1e6 });
    expect(r.body.uploadUrl).toMatch(new RegExp(`^${f.t.app.config.publicUrl}/v1/scanner/uploads/${r.body.jobId}\\?expires=\\d+&signature=[0-9a-f]{64}$`));
    const expires = Number(new URL(r.body.uploadUrl).searchParams.get("expires"));
    expect(expires).toBe(Math.floor(f.t.clock.now().getTime() / 1000) + 1800);
    expect(getProjectBalance(f.t.app.ctx, f.w.projectId).available).toBe(before);
  });
  test("the same idempotencyKey returns the existing job with deduplicated: true, in whatever state it is", async () => {
    const body = { files: [good], totalSizeBytes: 100, idempotencyKey: "build-42" };
    const a = await submit(body);
    const b = await submit(body);
    expect(a.body.deduplicated).toBeUndefined();
    expect(b.status).toBe(202);
    expect(b.body).toMatchObject({ jobId: a.body.jobId, status: "PENDING_UPLOAD", deduplicated: true });
    const c = await submit({ ...body, idempotencyKey: "build-43" });
    expect(c.body.jobId).not.toBe(a.body.jobId);
    // Another project's key space is separate.
    const d = await submit(body, f.other.keys.editor);
    expect(d.body.jobId).not.toBe(a.body.jobId);
    expect(d.body.deduplicated).toBeUndefined();
    const n = f.t.app.db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM scan_jobs WHERE idempotency_key = ?").get("build-42")!.n;
    expect(n).toBe(2);
    // After a cancel, the key still names that job.
    await f.t.call("DELETE", `/v1/scanner/jobs/${a.body.jobId}`, { key: f.w.keys.editor });
    expect((await submit(body)).body).toMatchObject({ jobId: a.body.jobId, status: "FAILED", deduplicated: true, expiresIn: 0 });
  });
  test("402 Insufficient credits when the balance cannot cover the reservation", async () => {
    const poor = buildWorld(f.t.app.ctx as never, "Poorhaven", { index: "none" });
    setPlan(f.t.app.ctx, poor.teamId, 500_000); // half a credit: below the 1-credit minimum balance
    const r = await submit({ files: [good], totalSizeBytes: 100 }, poor.keys.editor);
    expect(r.status).toBe(402);
    expect(r.body).toMatchObject({ error: "Insufficient credits", creditsNeeded: 1, credits: 0.5 });
    expect(r.body.message).toEqual(expect.any(String));
  });
});

describe("the signed upload URL", () => {
  const files = [{ path: "docs/lore.md", data: LORE.md }];
  const zip = zipOf(files);
  const fresh = async (totalSizeBytes = zip.length) =>
    (await submit({ files: manifestOf(files), totalSizeBytes })).body as { jobId: string; uploadUrl: string };
  const tamper = (url: string, fn: (u: URL) => void) => {
    const u = new URL(url);
    fn(u);
    return u.toString();
  };
  const uploadsDir = () => dataPaths(f.t.app.config).uploads;
  const leftovers = (jobId: string) => (existsSync(uploadsDir()) ? readdirSync(uploadsDir()).filter((n) => n.startsWith(jobId)) : []);

  test("a tampered signature, expiry or job id is 403 Access denied; nothing is stored", async () => {
    const s = await fresh();
    const other = await fresh();
    const sig = new URL(s.uploadUrl).searchParams.get("signature")!;
    const flipped = (sig[0] === "a" ? "b" : "a") + sig.slice(1);
    const cases = [
      tamper(s.uploadUrl, (u) => u.searchParams.set("signature", flipped)),
      tamper(s.uploadUrl, (u) => u.searchParams.set("expires", String(Number(u.searchParams.get("expires")) + 3600))),
      tamper(s.uploadUrl, (u) => u.searchParams.delete("signature")),
      tamper(s.uploadUrl, (u) => u.searchParams.set("signature", "zz")),
      tamper(s.uploadUrl, (u) => (u.pathname = u.pathname.replace(s.jobId, other.jobId))),
    ];
    for (const url of cases) {
      const r = await put(f.t, url, zip);
      expect(r.status).toBe(403);
      expect(r.body.error).toBe("Access denied");
    }
    expect(leftovers(s.jobId)).toEqual([]);
    expect(leftovers(other.jobId)).toEqual([]);
    // The genuine URL still works, with no API key.
    expect(await put(f.t, s.uploadUrl, zip)).toMatchObject({ status: 200, body: { jobId: s.jobId, status: "PENDING_UPLOAD", sizeBytes: zip.length } });
  });
  test("the URL expires after 1800 s (403), and the job after the 45-minute window (FAILED, Upload window expired)", async () => {
    const s = await fresh();
    f.t.clock.advance(1801_000);
    const r = await put(f.t, s.uploadUrl, zip);
    expect(r.status).toBe(403);
    expect(r.body.message).toMatch(/expired/);
    expect((await job(f, s.jobId)).body.status).toBe("PENDING_UPLOAD");
    f.t.clock.advance(15 * 60_000);
    const c = await f.t.call("POST", "/v1/scanner/submit-archive/confirm", { key: f.w.keys.editor, body: { jobId: s.jobId } });
    expect(c).toMatchObject({ status: 409, body: { error: "Job is not awaiting upload", currentStatus: "FAILED" } });
    expect((await job(f, s.jobId)).body).toMatchObject({ status: "FAILED", errorMessage: "Upload window expired" });
  });
  test("Content-Type must be application/zip", async () => {
    const s = await fresh();
    expect(await put(f.t, s.uploadUrl, zip, { "content-type": "application/octet-stream" })).toMatchObject({ status: 400, body: { error: "Invalid request" } });
    expect(await put(f.t, s.uploadUrl, zip, { "content-type": "application/zip; charset=binary" })).toMatchObject({ status: 200 });
  });
  test("a body larger than the declared totalSizeBytes is 413 Archive too large, with or without Content-Length, leaving nothing", async () => {
    const s = await fresh(zip.length - 1);
    const r = await put(f.t, s.uploadUrl, zip);
    expect(r).toMatchObject({ status: 413, body: { error: "Archive too large" } });
    // Streamed without a length: cut off while writing, the partial file removed.
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(zip.subarray(0, 10));
        c.enqueue(zip.subarray(10));
        c.close();
      },
    });
    const r2 = await put(f.t, s.uploadUrl, stream);
    expect(r2).toMatchObject({ status: 413, body: { error: "Archive too large" } });
    expect(leftovers(s.jobId)).toEqual([]);
    const c = await f.t.call("POST", "/v1/scanner/submit-archive/confirm", { key: f.w.keys.editor, body: { jobId: s.jobId } });
    expect(c.body.error).toBe("Archive not found in storage");
  });
  test("an empty body is refused", async () => {
    const s = await fresh();
    expect(await put(f.t, s.uploadUrl, new Uint8Array(0))).toMatchObject({ status: 400, body: { error: "Invalid request" } });
    expect(leftovers(s.jobId)).toEqual([]);
  });
  test("uploading again before confirm replaces the archive", async () => {
    const s = await fresh(10_000);
    const other = zipOf([{ path: "docs/lore.md", data: LORE.md }, { path: "extra.txt", data: LORE.txt }]);
    expect((await put(f.t, s.uploadUrl, zip)).status).toBe(200);
    expect((await put(f.t, s.uploadUrl, other)).status).toBe(200);
    expect(Buffer.compare(readFileSync(uploadPath(f.t.app.config, s.jobId)), Buffer.from(other))).toBe(0);
    expect(leftovers(s.jobId)).toEqual([`${s.jobId}.zip`]);
  });
});

describe("POST /scanner/estimate", () => {
  test("bad file metadata → 400 Invalid request", async () => {
    const e = (body: unknown) => f.t.call("POST", "/v1/scanner/estimate", { key: f.w.keys.editor, body });
    for (const body of [{}, { files: [] }, { files: [{ filename: "a.md" }] }, { files: [{ filename: "a.md", sizeBytes: -1 }] }, { files: [{ filename: "", sizeBytes: 1 }] }, { files: [{ filename: "a.md", sizeBytes: 1.5 }] }]) {
      const r = await e(body);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("Invalid request");
    }
  });
  test("no history: minimum_balance, the list price as estimate, the minimum balance as reservation", async () => {
    const fresh = buildWorld(f.t.app.ctx as never, "Newhaven", { index: "none" });
    const r = await f.t.call("POST", "/v1/scanner/estimate", {
      key: fresh.keys.editor,
      body: { files: [{ filename: "a.md", sizeBytes: 1000 }, { filename: "b.json", sizeBytes: 3000 }] },
    });
    expect(r.status).toBe(200);
    const available = getProjectBalance(f.t.app.ctx, fresh.projectId).available;
    expect(r.body).toEqual({
      estimatedMicrocredits: 4000,
      estimatedCredits: 0.004,
      reservedMicrocredits: 1_000_000,
      reservedCredits: 1,
      availableCredits: available / 1e6,
      perFile: [{ filename: "a.md", estimatedMicrocredits: 1000 }, { filename: "b.json", estimatedMicrocredits: 3000 }],
      estimateType: "minimum_balance",
      message: expect.stringMatching(/minimum balance of 1 credits/),
    });
    // Large archives: the minimum balance is twice the list price.
    const big = await f.t.call("POST", "/v1/scanner/estimate", { key: fresh.keys.editor, body: { files: [{ filename: "a.md", sizeBytes: 100_000_000 }] } });
    expect(big.body.reservedMicrocredits).toBe(200_000_000);
  });
  test("with history: rolling_average of the project's completed jobs, per extension where it has history", async () => {
    const hist = buildWorld(f.t.app.ctx as never, "Oldhaven", { index: "none" });
    const r0 = await f.t.call("POST", "/v1/scanner/estimate", { key: hist.keys.editor, body: { files: [{ filename: "x.md", sizeBytes: 100 }] } });
    expect(r0.body.estimateType).toBe("minimum_balance");
    // A real completed job: the actual cost was 1 microcredit per byte.
    const g = { ...f, w: hist };
    const { jobId } = await submitAndUpload(g, [{ path: "docs/lore.md", data: LORE.md }]);
    await runWorker(g);
    expect((await job(g, jobId, hist.keys.editor)).body.status).toBe("COMPLETED");
    const r1 = await f.t.call("POST", "/v1/scanner/estimate", { key: hist.keys.editor, body: { files: [{ filename: "x.md", sizeBytes: 100 }] } });
    expect(r1.body).toMatchObject({ estimateType: "rolling_average", estimatedMicrocredits: 100, reservedMicrocredits: 150 });
    expect(r1.body.message).toMatch(/average cost of the last 1 completed scan/);
    // Earlier jobs that cost more per byte (e.g. model tokens) for one extension: that extension's own average is used.
    f.t.clock.advance(1000);
    f.t.app.db
      .query(
        `INSERT INTO scan_jobs (id, project_id, status, manifest, total_size_bytes, total_files, upload_expires_at, created_at, completed_at,
           bytes_processed, actual_micro, cost_by_extension)
         VALUES ('scan_hist', ?, 'COMPLETED', '[]', 1, 1, ?, ?, ?, 20000, 60000, ?)`,
      )
      .run(hist.projectId, f.t.clock.now().toISOString(), f.t.clock.now().toISOString(), f.t.clock.now().toISOString(),
        JSON.stringify({ ".ink": { bytes: 10000, micro: 50000 }, ".md": { bytes: 10000, micro: 10000 } }));
    const r2 = await f.t.call("POST", "/v1/scanner/estimate", {
      key: hist.keys.editor,
      body: { files: [{ filename: "a.ink", sizeBytes: 100 }, { filename: "b.md", sizeBytes: 100 }, { filename: "c.csv", sizeBytes: 100 }] },
    });
    const bytesAll = 20000 + LORE.md.length;
    const microAll = 60000 + LORE.md.length;
    expect(r2.body.perFile).toEqual([
      { filename: "a.ink", estimatedMicrocredits: 500 },
      { filename: "b.md", estimatedMicrocredits: 100 },
      { filename: "c.csv", estimatedMicrocredits: Math.ceil((100 * microAll) / bytesAll) },
    ]);
    expect(r2.body.reservedMicrocredits).toBeGreaterThan(r2.body.estimatedMicrocredits);
    expect(r2.body.message).toMatch(/last 2 completed scans/);
  });
});
