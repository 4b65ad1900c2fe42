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
    if (!isMissing(e)) return `unreadable ${nativeLayout.manifest}`;
    return fs.existsSync(dir) ? `incomplete (no ${nativeLayout.manifest})` : "not extracted yet";
  }
  if (manifest.bundleId !== bundle.id) return `holds bundle ${manifest.bundleId}, this executable carries ${bundle.id}`;

  for (const file of bundle.files) {
    const full = path.join(dir, file.path);
    try {
      const size = fs.statSync(full).size;
      if (size !== file.size) return `${file.path} has ${size} bytes, expected ${file.size}`;
      if (hashNativeFile(mapFile(full, size)) !== file.xxh3) return `${file.path} is corrupted (checksum mismatch)`;
    } catch (e) {
      return isMissing(e) ? `${file.path} is missing` : `${file.path} is unreadable (${(e as Error).message})`;
    }
  }
  return null;
}

/** mmap instead of readFileSync: verifying ~75 MB takes ~15 ms instead of ~50 ms (no copies into fresh buffers). */
function mapFile(file: string, size: number): Uint8Array {
  return size === 0 ? new Uint8Array(0) : Bun.mmap(file, { shared: false });
}

/** For `native/` beside the executable: the operator placed it, so only completeness is checked. */
export function missingNativeFiles(dir: string, bundle: NativeBundle): string[] {
  return bundle.files.map((f) => f.path).filter((p) => !fs.existsSync(path.join(dir, p)));
}

function isMissing(e: unknown): boolean {
  return (e as NodeJS.ErrnoException)?.code === "ENOENT";
}
