import fs from "node:fs";
import path from "node:path";
import { hashNativeFile } from "./hashNativeFile.ts";
import { nativeLayout, type NativeBundle } from "./nativeContract.ts";

export interface ManifestOnDisk {
  bundleId: string;
  version: string;
  target: string;
  files: { path: string; size: number; xxh3: string }[];
}

/**
 * Checks an extracted folder against the hashes compiled into the executable
 * (never against the manifest on disk, which could be as damaged as the rest).
 * Returns null when it is complete and intact, else the first problem found.
 * The manifest is written last, so a missing or foreign manifest also catches
 * an extraction that was interrupted before its rename.
 */
export function verifyNativeDir(dir: string, bundle: NativeBundle): string | null {
  let manifest: ManifestOnDisk;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(dir, nativeLayout.manifest), "utf8"));
  } catch (e) {
    return isMissing(e) ? "not extracted yet" : `unreadable ${nativeLayout.manifest}`;
  }
  if (manifest.bundleId !== bundle.id) return `holds bundle ${manifest.bundleId}, this executable carries ${bundle.id}`;

  for (const file of bundle.files) {
    const full = path.join(dir, file.path);
    let content: Buffer;
    try {
      content = fs.readFileSync(full);
    } catch (e) {
      return isMissing(e) ? `${file.path} is missing` : `${file.path} is unreadable (${(e as Error).message})`;
    }
    if (content.length !== file.size) return `${file.path} has ${content.length} bytes, expected ${file.size}`;
    if (hashNativeFile(content) !== file.xxh3) return `${file.path} is corrupted (checksum mismatch)`;
  }
  return null;
}

/** For `native/` beside the executable: the operator placed it, so only completeness is checked. */
export function missingNativeFiles(dir: string, bundle: NativeBundle): string[] {
  return bundle.files.map((f) => f.path).filter((p) => !fs.existsSync(path.join(dir, p)));
}

function isMissing(e: unknown): boolean {
  return (e as NodeJS.ErrnoException)?.code === "ENOENT";
}
