import { ApiError } from "../core/errors.ts";
import { isSafeEntryPath, normalizeEntryName } from "./archive/entryName.ts";
import { ALLOWED_EXTENSIONS } from "./extract/index.ts";
import { SCANNER_LIMITS } from "./limits.ts";
import type { ManifestFile } from "./scanJobRow.ts";

export interface Submission {
  files: ManifestFile[];
  totalSizeBytes: number;
  userContext: string | null;
  idempotencyKey: string | null;
}

const TOP_FIELDS = new Set(["files", "totalSizeBytes", "userContext", "idempotencyKey"]);
const FILE_FIELDS = new Set(["filename", "relativePath", "sizeBytes", "contentHash"]);
const SHA256_HEX = /^[0-9a-fA-F]{64}$/;
/** How many problems a 400 lists (a 5,000-file manifest can be wrong everywhere). */
const MAX_LISTED_PROBLEMS = 50;

function extensionOf(path: string): string {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(dot).toLowerCase() : "";
}

function isWholeNumber(v: unknown): v is number {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
}

/**
 * POST /scanner/submit-archive body, checked in the spec's order of errors:
 * 400 `Invalid manifest` (every malformed field named in `details`), then
 * 400 `Archive too large` (totalSizeBytes over 200 MB), then
 * 400 `Invalid file types in manifest` (`rejectedFiles`, `allowedExtensions`).
 */
export function validateSubmission(body: unknown): Submission {
  const problems: string[] = [];
  const add = (p: string) => problems.length < MAX_LISTED_PROBLEMS && problems.push(p);
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new ApiError(400, "Invalid manifest", { details: ["body: must be a JSON object"] });
  }
  const b = body as Record<string, unknown>;
  for (const k of Object.keys(b)) if (!TOP_FIELDS.has(k)) add(`${k}: unknown field`);

  const files: ManifestFile[] = [];
  if (!Array.isArray(b.files)) add("files: required, a list of files");
  else if (b.files.length === 0) add("files: must list at least one file");
  else if (b.files.length > SCANNER_LIMITS.maxFiles) add(`files: at most ${SCANNER_LIMITS.maxFiles} files`);
  else {
    const seen = new Map<string, number>();
    b.files.forEach((f: unknown, i: number) => {
      const at = `files[${i}]`;
      if (typeof f !== "object" || f === null || Array.isArray(f)) return void add(`${at}: must be an object`);
      const file = f as Record<string, unknown>;
      for (const k of Object.keys(file)) if (!FILE_FIELDS.has(k)) add(`${at}.${k}: unknown field`);
      let ok = true;
      const bad = (p: string) => ((ok = false), add(p));
      if (typeof file.filename !== "string" || file.filename.trim() === "") bad(`${at}.filename: required, a non-empty string`);
      else if (file.filename.length > SCANNER_LIMITS.filenameChars) bad(`${at}.filename: at most ${SCANNER_LIMITS.filenameChars} characters`);
      const rel = file.relativePath;
      if (typeof rel !== "string" || rel === "") bad(`${at}.relativePath: required, a non-empty string`);
      else if (rel.length > SCANNER_LIMITS.relativePathChars) bad(`${at}.relativePath: at most ${SCANNER_LIMITS.relativePathChars} characters`);
      else if (!isSafeEntryPath(rel)) {
        bad(`${at}.relativePath: must be a relative path inside the archive (forward slashes; no leading '/', drive letter, '.' or '..' segment, or control characters)`);
      } else {
        const key = normalizeEntryName(rel);
        const first = seen.get(key);
        if (first !== undefined) bad(`${at}.relativePath: duplicate of files[${first}] ('${rel}')`);
        else seen.set(key, i);
      }
      if (!isWholeNumber(file.sizeBytes)) bad(`${at}.sizeBytes: required, a whole number of bytes`);
      else if (file.sizeBytes > SCANNER_LIMITS.maxArchiveBytes) bad(`${at}.sizeBytes: at most ${SCANNER_LIMITS.maxArchiveBytes} bytes`);
      if (typeof file.contentHash !== "string" || !SHA256_HEX.test(file.contentHash)) {
        bad(`${at}.contentHash: required, the file's SHA-256 as 64 hexadecimal characters`);
      }
      if (ok) {
        files.push({
          filename: file.filename as string,
          relativePath: rel as string,
          sizeBytes: file.sizeBytes as number,
          contentHash: (file.contentHash as string).toLowerCase(),
        });
      }
    });
  }
  if (!isWholeNumber(b.totalSizeBytes) || b.totalSizeBytes === 0) add("totalSizeBytes: required, the archive's size in bytes (a positive whole number)");
  if (b.userContext !== undefined && b.userContext !== null) {
    if (typeof b.userContext !== "string") add("userContext: must be a string");
    else if (b.userContext.length > SCANNER_LIMITS.userContextChars) add(`userContext: at most ${SCANNER_LIMITS.userContextChars} characters`);
  }
  if (b.idempotencyKey !== undefined && b.idempotencyKey !== null) {
    if (typeof b.idempotencyKey !== "string" || b.idempotencyKey === "") add("idempotencyKey: must be a non-empty string");
    else if (b.idempotencyKey.length > SCANNER_LIMITS.idempotencyKeyChars) add(`idempotencyKey: at most ${SCANNER_LIMITS.idempotencyKeyChars} characters`);
  }
  if (problems.length) throw new ApiError(400, "Invalid manifest", { details: problems });

  const totalSizeBytes = b.totalSizeBytes as number;
  if (totalSizeBytes > SCANNER_LIMITS.maxArchiveBytes) {
    throw new ApiError(400, "Archive too large", {
      message: `totalSizeBytes is ${totalSizeBytes}; the limit is ${SCANNER_LIMITS.maxArchiveBytes} bytes (200 MB).`,
      maxBytes: SCANNER_LIMITS.maxArchiveBytes,
    });
  }
  const allowed = new Set(ALLOWED_EXTENSIONS);
  const rejectedFiles = files.filter((f) => !allowed.has(extensionOf(f.relativePath))).map((f) => f.relativePath);
  if (rejectedFiles.length) {
    throw new ApiError(400, "Invalid file types in manifest", { rejectedFiles, allowedExtensions: [...ALLOWED_EXTENSIONS] });
  }
  return {
    files,
    totalSizeBytes,
    userContext: typeof b.userContext === "string" && b.userContext !== "" ? b.userContext : null,
    idempotencyKey: typeof b.idempotencyKey === "string" ? b.idempotencyKey : null,
  };
}
