import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { randomBase62 } from "../core/ids.ts";
import { dataPaths, type Config } from "../config/config.ts";

/** Where the archive of a job lives: data/uploads/<jobId>.zip. */
export function uploadPath(config: Pick<Config, "dataDir">, jobId: string): string {
  return join(dataPaths(config).uploads, `${jobId}.zip`);
}

export function hasUpload(config: Pick<Config, "dataDir">, jobId: string): boolean {
  return existsSync(uploadPath(config, jobId));
}

export function deleteUpload(config: Pick<Config, "dataDir">, jobId: string): void {
  rmSync(uploadPath(config, jobId), { force: true });
}

/** The body was longer than allowed; nothing was kept. */
export class UploadTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`upload exceeds ${limit} bytes`);
  }
}

/**
 * Streams `body` to a temp file beside the destination, chunk by chunk (never
 * the whole archive in memory), stopping as soon as it passes `maxBytes`.
 * Returns the temp path and the size; the caller decides whether to keep it
 * (commitUpload) — a failed or refused upload leaves nothing behind.
 */
export async function receiveUpload(
  config: Pick<Config, "dataDir">,
  jobId: string,
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
): Promise<{ tempPath: string; bytes: number }> {
  const dir = dataPaths(config).uploads;
  mkdirSync(dir, { recursive: true });
  const tempPath = join(dir, `${jobId}.${randomBase62(8)}.part`);
  const file = await open(tempPath, "w");
  let bytes = 0;
  try {
    const reader = body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        bytes += value.byteLength;
        if (bytes > maxBytes) throw new UploadTooLarge(maxBytes);
        let off = 0;
        while (off < value.byteLength) off += (await file.write(value, off, value.byteLength - off)).bytesWritten;
      }
    } finally {
      reader.releaseLock();
    }
    await file.close();
    return { tempPath, bytes };
  } catch (e) {
    await file.close().catch(() => {});
    rmSync(tempPath, { force: true });
    throw e;
  }
}

/** Moves a received upload into place: a re-upload replaces the earlier file atomically. */
export function commitUpload(config: Pick<Config, "dataDir">, jobId: string, tempPath: string): void {
  renameSync(tempPath, uploadPath(config, jobId));
}

/** Files in data/uploads with the job id each belongs to (`<jobId>.zip` or `<jobId>.<rand>.part`). */
export function listUploadFiles(config: Pick<Config, "dataDir">): { path: string; jobId: string; partial: boolean }[] {
  const dir = dataPaths(config).uploads;
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const m = /^(.+?)(?:\.[0-9A-Za-z]+\.part|\.zip)$/.exec(name);
    return m ? [{ path: join(dir, name), jobId: m[1], partial: name.endsWith(".part") }] : [];
  });
}
