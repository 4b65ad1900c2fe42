import fs from "node:fs";
import path from "node:path";
import { checkCanExecuteIn, checkLoadable, checkPrivate } from "./checkLoadable.ts";
import { extractNatives } from "./extractNatives.ts";
import { nativeCacheCandidates } from "./nativeCacheCandidates.ts";
import { nativeLayout, type NativeBundle } from "./nativeContract.ts";
import { NativeDirError, nativeDirHint, type NativeDirAttempt } from "./NativeDirError.ts";
import { missingNativeFiles, verifyNativeDir } from "./verifyNativeDir.ts";

export interface PreparedNatives {
  source: "beside" | "cache";
  dir: string;
  /** True when this start wrote the folder (first start, or a repair). */
  extracted: boolean;
  /** Why it was (re-)extracted: "not extracted yet", "<file> is corrupted (checksum mismatch)", ... */
  extractReason: string | null;
  /** Cache locations passed over before `dir`, with the reason. */
  skipped: NativeDirAttempt[];
}

/**
 * Finds or makes a folder holding this executable's natives:
 * 1. `native/` beside the executable, used as is (read-only installs, Docker images);
 * 2. else the first usable cache location (see nativeCacheCandidates), where
 *    the embedded files are extracted once and checked on every start.
 */
export function prepareNatives(
  bundle: NativeBundle,
  { execPath = process.execPath, env = process.env }: { execPath?: string; env?: NodeJS.ProcessEnv } = {},
): PreparedNatives {
  const beside = path.join(path.dirname(execPath), "native");
  if (isDirectory(beside)) return useBesideFolder(beside, bundle);
  if (bundle.mode === "beside")
    throw new NativeDirError(
      `This executable was built with --natives beside but ${beside} does not exist. ` +
        "Copy the native/ folder from the build output next to the executable.",
    );

  const folderName = `native-${bundle.version}-${bundle.id}`;
  const probe = `${nativeLayout.llamaBinsDir}/${bundle.llamaBuildFolder}/llama-addon.node`;
  const attempts: NativeDirAttempt[] = [];
  for (const candidate of nativeCacheCandidates(env)) {
    const dir = path.join(candidate.base, folderName);
    const problem = candidate.mustBePrivate ? checkPrivate(candidate.base) : null;
    if (problem) {
      attempts.push({ dir, problem: `${candidate.origin}: ${problem}` });
      continue;
    }
    try {
      const found = verifyNativeDir(dir, bundle);
      // An intact folder may sit on a read-only cache: check it without writing.
      // Before extracting, check the mount with a tiny file instead of ~75 MB.
      let unloadable: string | null;
      if (found === null) unloadable = checkLoadable(dir, probe);
      else {
        fs.mkdirSync(candidate.base, { recursive: true, mode: 0o700 });
        unloadable = checkCanExecuteIn(candidate.base);
      }
      if (unloadable) {
        attempts.push({ dir, problem: `${candidate.origin}: ${unloadable}` });
        continue;
      }
      if (found !== null) extractNatives(dir, bundle);
      return { source: "cache", dir, extracted: found !== null, extractReason: found, skipped: attempts };
    } catch (e) {
      if (e instanceof NativeDirError) throw e; // not about this location: another one will not help
      attempts.push({ dir, problem: `${candidate.origin}: ${describeFsError(e)}` });
    }
  }
  throw new NativeDirError(
    "Lorehold could not prepare its native libraries (llama.cpp, onnxruntime). Tried:\n" +
      attempts.map((a) => `  - ${a.dir}: ${a.problem}`).join("\n") +
      "\n" +
      nativeDirHint,
    attempts,
  );
}

function useBesideFolder(dir: string, bundle: NativeBundle): PreparedNatives {
  const missing = missingNativeFiles(dir, bundle);
  if (missing.length)
    throw new NativeDirError(
      `${dir} is incomplete (missing ${missing.slice(0, 3).join(", ")}${missing.length > 3 ? ", ..." : ""}). ` +
        "Replace it with the native/ folder from the same build, or remove it to use the natives embedded in the executable.",
    );
  const unloadable = checkLoadable(dir, `${nativeLayout.llamaBinsDir}/${bundle.llamaBuildFolder}/llama-addon.node`);
  if (unloadable) throw new NativeDirError(`${dir} cannot be used: ${unloadable}. ${nativeDirHint}`);
  return { source: "beside", dir, extracted: false, extractReason: null, skipped: [] };
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function describeFsError(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  switch (err.code) {
    case "EROFS":
      return "read-only filesystem";
    case "EACCES":
    case "EPERM":
      return `permission denied (${err.path ?? err.message})`;
    case "ENOSPC":
      return "no space left on device";
    case "EDQUOT":
      return "disk quota exceeded";
    default:
      return err.message ?? String(e);
  }
}
