import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import type { LoreholdClient } from "./client.js";
import { LoreholdError } from "./errors.js";
import type { CallOptions } from "./transport.js";
import type { GetV1ScannerJobsByJobIdResponse, PostV1ScannerSubmitArchiveBody } from "./generated/api.js";
import { buildZip } from "./zip.js";

export interface ScanFolderOptions extends CallOptions {
  /** only files with these extensions (lower case, with the dot); default: every file not starting with "." */
  extensions?: string[];
  /** context for the extraction (max 5,000 characters) */
  userContext?: string;
  /** resending the same key returns the existing job instead of a new one */
  idempotencyKey?: string;
  /** how often to poll the job (ms, default 2,000) */
  pollIntervalMs?: number;
  /** give up polling after this long (ms, default 30 minutes): TRANSPORT_ERROR with aborted: "timeout" */
  pollTimeoutMs?: number;
  /** called after each poll, e.g. for a progress bar */
  onProgress?: (job: GetV1ScannerJobsByJobIdResponse) => void;
}

export type ScanManifest = PostV1ScannerSubmitArchiveBody["files"];

/** The folder's files (relative paths with '/'), their manifest lines (SHA-256 of each) and the ZIP to upload. */
export async function packFolder(dir: string, extensions?: string[]): Promise<{ manifest: ScanManifest; zip: Uint8Array }> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join((e as { parentPath?: string; path?: string }).parentPath ?? (e as { path: string }).path, e.name)).split(sep).join("/"))
    .filter((rel) => !rel.split("/").some((p) => p.startsWith(".")))
    .filter((rel) => !extensions || extensions.some((x) => rel.toLowerCase().endsWith(x.toLowerCase())))
    .sort();
  const zipEntries: { path: string; data: Uint8Array }[] = [];
  const manifest: ScanManifest = [];
  for (const rel of files) {
    const data = new Uint8Array(await readFile(join(dir, rel)));
    zipEntries.push({ path: rel, data });
    manifest.push({ filename: rel.slice(rel.lastIndexOf("/") + 1), relativePath: rel, sizeBytes: data.length, contentHash: createHash("sha256").update(data).digest("hex") });
  }
  return { manifest, zip: buildZip(zipEntries) };
}

/**
 * The scanner flow in one call: manifest + ZIP of the folder, submit,
 * upload to the signed URL, confirm (credits are reserved here), then poll
 * until the job is COMPLETED or FAILED. Resolves to the finished job (its
 * extractions are then reviewed and committed with client.commit()).
 */
export async function scanFolder(client: LoreholdClient, dir: string, opts: ScanFolderOptions = {}): Promise<GetV1ScannerJobsByJobIdResponse> {
  const call = { signal: opts.signal, timeoutMs: opts.timeoutMs };
  const { manifest, zip } = await packFolder(dir, opts.extensions);
  if (manifest.length === 0) throw new LoreholdError("VALIDATION_ERROR", `no files to scan in ${dir}`);
  const submitted = await client.submitArchive(
    { files: manifest, totalSizeBytes: zip.length, ...(opts.userContext ? { userContext: opts.userContext } : {}), ...(opts.idempotencyKey ? { idempotencyKey: opts.idempotencyKey } : {}) },
    call,
  );
  if (submitted.status === "PENDING_UPLOAD") {
    await client.uploadArchive(submitted.uploadUrl, zip, call);
    await client.confirm(submitted.jobId, call);
  }
  const interval = opts.pollIntervalMs ?? 2000;
  const deadline = Date.now() + (opts.pollTimeoutMs ?? 30 * 60_000);
  for (;;) {
    const job = await client.job(submitted.jobId, call);
    opts.onProgress?.(job);
    if (job.status === "COMPLETED" || job.status === "FAILED") return job;
    if (Date.now() + interval > deadline) throw new LoreholdError("TRANSPORT_ERROR", `scan job ${submitted.jobId} still ${job.status} after polling timeout`, { aborted: "timeout" });
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(resolve, interval);
      opts.signal?.addEventListener("abort", () => {
        clearTimeout(t);
        reject(new LoreholdError("TRANSPORT_ERROR", "cancelled", { aborted: true }));
      }, { once: true });
    });
  }
}
