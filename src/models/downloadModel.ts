import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { ModelDownloadError } from "./ModelDownloadError.ts";
import { sha256File } from "./sha256File.ts";

export interface DownloadProgress {
  /** Bytes on disk so far, including what an earlier attempt left. */
  downloaded: number;
  /** Full size when the server told it, else null. */
  total: number | null;
  /** Where this attempt started (0, or the size of the `.partial` file it resumed). */
  resumedFrom: number;
}

export interface DownloadOptions {
  url: string;
  /** Folder to download into (modelsDir); created when missing. */
  dir: string;
  fileName: string;
  /** Expected SHA-256 (hex). Without it, a SHA-256 ETag (Hugging Face's x-linked-etag) is used when present. */
  sha256?: string;
  headers?: Record<string, string>;
  /** Automatic resumes after a dropped connection or a 5xx (default 3). */
  retries?: number;
  retryDelayMs?: number;
  onProgress?: (p: DownloadProgress) => void;
  fetch?: typeof fetch;
}

export interface DownloadResult {
  path: string;
  url: string;
  sizeBytes: number;
  sha256: string;
  /** What the file was checked against: a known checksum, only the announced size, or nothing the server told. */
  verified: "sha256" | "size" | "none";
  /** Where the request that finished the file started: bytes reused from an interrupted attempt (0 for a fresh one). */
  resumedFrom: number;
  /** Requests it took (1 without interruptions; 0 when the file was already there). */
  attempts: number;
  /** The file was there already; nothing was downloaded. */
  alreadyPresent: boolean;
}

/** What an interrupted download remembers beside its `.partial` file, so a resume asks for the same bytes. */
interface PartialMeta {
  url: string;
  total: number | null;
  /** A strong ETag or Last-Modified, sent as If-Range: a changed remote file restarts from 0 instead of splicing. */
  validator: string | null;
  sha256: string | null;
}

const SHA256 = /^[0-9a-f]{64}$/;
const MAX_REDIRECTS = 10;

/**
 * Downloads one model file into `dir` through `<name>.partial` (resumable with
 * HTTP Range), checks its size and checksum, and only then renames it to its
 * name — a model file in modelsDir is always complete. A bad checksum deletes
 * the download; an interruption keeps the `.partial` for the next attempt.
 *
 * Not node-llama-cpp's `createModelDownloader` (ipull): against a server that
 * drops the connection it restarted from byte 0 instead of resuming, reported
 * a total of 0 without a HEAD, and it verifies no checksum.
 */
export async function downloadModel(opts: DownloadOptions): Promise<DownloadResult> {
  checkFileName(opts.fileName);
  const expectedSha = opts.sha256?.toLowerCase() ?? null;
  if (expectedSha !== null && !SHA256.test(expectedSha)) throw new ModelDownloadError(`--sha256 must be 64 hex digits, got '${opts.sha256}'`);
  mkdirSync(opts.dir, { recursive: true });
  const dest = join(opts.dir, opts.fileName);
  const partial = `${dest}.partial`;
  const metaPath = `${partial}.json`;

  if (existsSync(dest)) {
    const sha = await sha256File(dest);
    if (expectedSha && sha !== expectedSha) {
      throw new ModelDownloadError(`${dest} already exists but its sha256 is ${sha}, not ${expectedSha}; remove it to download again`);
    }
    return { path: dest, url: opts.url, sizeBytes: statSync(dest).size, sha256: sha, verified: expectedSha ? "sha256" : "none", resumedFrom: 0, attempts: 0, alreadyPresent: true };
  }

  const retries = opts.retries ?? 3;
  const discard = () => {
    rmSync(partial, { force: true });
    rmSync(metaPath, { force: true });
  };
  let meta = readMeta(metaPath);
  if (meta && meta.url !== opts.url) {
    discard();
    meta = null;
  }
  if (!meta && existsSync(partial)) discard(); // a partial whose origin we do not know cannot be trusted

  let resumedFrom = 0;
  let attempts = 0;
  for (let attempt = 0; ; attempt++) {
    attempts = attempt + 1;
    try {
      const offset = existsSync(partial) ? statSync(partial).size : 0;
      resumedFrom = await attemptDownload(opts, partial, offset, meta, (m) => {
        meta = m;
        writeFileSync(metaPath, JSON.stringify(m));
      });
      break;
    } catch (e) {
      const retryable = e instanceof ModelDownloadError ? e.retryable : true;
      if (!retryable) throw e;
      if (attempt >= retries) {
        const have = existsSync(partial) ? statSync(partial).size : 0;
        throw new ModelDownloadError(
          `download of ${opts.fileName} interrupted at ${have}${meta?.total ? ` of ${meta.total}` : ""} bytes (${(e as Error).message}); ` +
            `run the same command again to resume`,
          true,
        );
      }
      await Bun.sleep((opts.retryDelayMs ?? 1000) * (attempt + 1));
    }
  }

  const size = statSync(partial).size;
  const sha = await sha256File(partial);
  const wanted = expectedSha ?? meta?.sha256 ?? null;
  if (wanted && sha !== wanted) {
    discard();
    throw new ModelDownloadError(`checksum mismatch for ${opts.fileName}: expected sha256 ${wanted}, got ${sha}; the download was deleted`);
  }
  if (/\.gguf$/i.test(opts.fileName) && !hasGgufMagic(partial)) {
    discard();
    throw new ModelDownloadError(`${opts.url} did not send a GGUF file (no GGUF header); the download was deleted`);
  }
  renameSync(partial, dest);
  rmSync(metaPath, { force: true });
  return {
    path: dest,
    url: opts.url,
    sizeBytes: size,
    sha256: sha,
    verified: wanted ? "sha256" : meta?.total != null ? "size" : "none",
    resumedFrom,
    attempts,
    alreadyPresent: false,
  };
}

/** One request: resumes from `offset` when the server honours Range, streams into the partial file; returns where it started. */
async function attemptDownload(
  opts: DownloadOptions,
  partial: string,
  offset: number,
  meta: PartialMeta | null,
  saveMeta: (m: PartialMeta) => void,
): Promise<number> {
  const headers: Record<string, string> = { ...opts.headers, "accept-encoding": "identity" };
  if (offset > 0) {
    headers.range = `bytes=${offset}-`;
    if (meta?.validator) headers["if-range"] = meta.validator;
  }
  const { res, linked } = await request(opts, headers);

  if (res.status === 416) {
    await res.body?.cancel();
    const total = Number(/\/(\d+)$/.exec(res.headers.get("content-range") ?? "")?.[1] ?? meta?.total ?? NaN);
    if (offset > 0 && total === offset) return offset; // the partial was already whole
    rmSync(partial, { force: true });
    throw new ModelDownloadError(`the server refused to resume at byte ${offset}; restarting`, true);
  }
  if (res.status === 404 || res.status === 410) throw new ModelDownloadError(`not found (HTTP ${res.status}): ${opts.url}`);
  if (res.status === 401 || res.status === 403) {
    throw new ModelDownloadError(`access denied (HTTP ${res.status}): ${opts.url}${opts.url.includes("huggingface") ? " (a gated repo needs HF_TOKEN)" : ""}`);
  }
  if (res.status >= 500 || res.status === 408 || res.status === 429) throw new ModelDownloadError(`HTTP ${res.status} from ${opts.url}`, true);
  if (res.status !== 200 && res.status !== 206) throw new ModelDownloadError(`unexpected HTTP ${res.status} from ${opts.url}`);

  let start = 0;
  let total: number | null = null;
  const length = res.headers.get("content-length");
  if (res.status === 206) {
    const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(res.headers.get("content-range") ?? "");
    if (!range || Number(range[1]) !== offset) {
      await res.body?.cancel();
      rmSync(partial, { force: true });
      throw new ModelDownloadError(`the server answered a different range (${res.headers.get("content-range")}); restarting`, true);
    }
    start = offset;
    total = range[3] === "*" ? null : Number(range[3]);
  } else if (length !== null) {
    total = Number(length);
  }
  total ??= linked.size;
  // A 200 to a Range request means the server sends the whole file (or it changed, per If-Range): start over.
  const validator = strongValidator(res.headers);
  const sha = linked.sha256 ?? shaFromEtag(res.headers.get("etag"));
  saveMeta({ url: opts.url, total, validator, sha256: sha });

  const fd = openSync(partial, start > 0 ? "a" : "w");
  let written = start;
  try {
    opts.onProgress?.({ downloaded: written, total, resumedFrom: start });
    if (!res.body) throw new ModelDownloadError("empty response body", true);
    for await (const chunk of res.body) {
      writeSync(fd, chunk);
      written += chunk.byteLength;
      if (total !== null && written > total) {
        closeSync(fd);
        rmSync(partial, { force: true });
        throw new ModelDownloadError(`the server sent more than the ${total} bytes it announced; the download was deleted`);
      }
      opts.onProgress?.({ downloaded: written, total, resumedFrom: start });
    }
  } catch (e) {
    if (e instanceof ModelDownloadError) throw e;
    throw new ModelDownloadError((e as Error).message || String(e), true);
  } finally {
    try {
      closeSync(fd);
    } catch {}
  }
  if (total !== null && written < total) throw new ModelDownloadError(`connection closed after ${written} of ${total} bytes`, true);
  return start;
}

/**
 * GET with redirects followed by hand: Hugging Face announces the file's
 * SHA-256 and size (`x-linked-etag`, `x-linked-size`) on the redirect, not on
 * the CDN's answer. Credentials are not sent to another origin.
 */
async function request(opts: DownloadOptions, headers: Record<string, string>): Promise<{ res: Response; linked: { sha256: string | null; size: number | null } }> {
  const doFetch = opts.fetch ?? fetch;
  const linked = { sha256: null as string | null, size: null as number | null };
  let url = opts.url;
  let sent = { ...headers };
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    let res: Response;
    try {
      res = await doFetch(url, { headers: sent, redirect: "manual" });
    } catch (e) {
      throw new ModelDownloadError(`cannot reach ${new URL(url).origin}: ${(e as Error).message}`, true);
    }
    linked.sha256 ??= shaFromEtag(res.headers.get("x-linked-etag"));
    const linkedSize = res.headers.get("x-linked-size");
    if (linked.size === null && linkedSize && /^\d+$/.test(linkedSize)) linked.size = Number(linkedSize);
    const location = res.headers.get("location");
    if (res.status < 300 || res.status >= 400 || !location) return { res, linked };
    await res.body?.cancel();
    const next = new URL(location, url);
    if (next.origin !== new URL(url).origin) {
      sent = Object.fromEntries(Object.entries(sent).filter(([k]) => k.toLowerCase() !== "authorization"));
    }
    url = next.href;
  }
  throw new ModelDownloadError(`too many redirects from ${opts.url}`);
}

function shaFromEtag(etag: string | null): string | null {
  if (!etag) return null;
  const v = etag.replace(/^W\//, "").replace(/"/g, "").toLowerCase();
  return SHA256.test(v) ? v : null;
}

function strongValidator(h: Headers): string | null {
  const etag = h.get("etag");
  if (etag && !etag.startsWith("W/")) return etag;
  return h.get("last-modified");
}

function readMeta(path: string): PartialMeta | null {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as PartialMeta;
  } catch {
    return null;
  }
}

function hasGgufMagic(path: string): boolean {
  const fd = openSync(path, "r");
  try {
    const head = Buffer.alloc(4);
    return readSync(fd, head, 0, 4, 0) === 4 && head.toString("latin1") === "GGUF";
  } finally {
    closeSync(fd);
  }
}

function checkFileName(name: string): void {
  if (!name || name === "." || name === ".." || /[\\/\0]/.test(name)) {
    throw new ModelDownloadError(`cannot use '${name}' as a model file name: give one with --name FILE`);
  }
  if (name.endsWith(".partial") || name.endsWith(".partial.json")) throw new ModelDownloadError(`'${name}' is reserved for downloads in progress`);
}
