import fs from "node:fs";
import path from "node:path";
import { hashNativeFile } from "./hashNativeFile.ts";
import { nativeLayout, type NativeBundle } from "./nativeContract.ts";
import { NativeDirError } from "./NativeDirError.ts";
import { verifyNativeDir, type ManifestOnDisk } from "./verifyNativeDir.ts";

/** Leftovers of crashed extractions older than this are removed. */
const STALE_TEMP_MS = 60 * 60 * 1000;

/**
 * Writes the embedded natives to `dir`, atomically: everything goes to a
 * sibling temp folder (manifest last), which is then renamed into place, so
 * other processes only ever see a complete folder or none. A damaged `dir` is
 * renamed aside first; processes that already mapped its libraries keep
 * their mappings (Linux unlinks lazily).
 *
 * Synchronous on purpose: this runs while the entry module's imports are
 * still evaluating, before node-llama-cpp's own top-level code reads the folder.
 */
export function extractNatives(dir: string, bundle: NativeBundle): void {
  const parent = path.dirname(dir);
  const name = path.basename(dir);
  fs.mkdirSync(parent, { recursive: true, mode: 0o700 });
  removeStaleTemps(parent, name);

  const temp = path.join(parent, `${name}.tmp-${process.pid}-${randomSuffix()}`);
  try {
    fs.mkdirSync(temp, { mode: 0o755 });
    for (const file of bundle.files) {
      const content = fs.readFileSync(file.embedded);
      // The executable itself could be damaged (partial download); say so instead of caching garbage.
      if (content.length !== file.size || hashNativeFile(content) !== file.xxh3)
        throw new NativeDirError(`The copy of ${file.path} embedded in this executable is damaged (checksum mismatch): re-download or rebuild the executable.`);
      const target = path.join(temp, file.path);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, content, { mode: file.executable ? 0o755 : 0o644 });
    }
    const manifest: ManifestOnDisk = {
      bundleId: bundle.id,
      version: bundle.version,
      target: bundle.target,
      files: bundle.files.map(({ path, size, xxh3 }) => ({ path, size, xxh3 })),
    };
    fs.writeFileSync(path.join(temp, nativeLayout.manifest), JSON.stringify(manifest, null, 2) + "\n");

    // Another process may have repaired it meanwhile; only move aside what is still bad.
    if (fs.existsSync(dir) && verifyNativeDir(dir, bundle) !== null) {
      const aside = path.join(parent, `${name}.old-${process.pid}-${randomSuffix()}`);
      fs.renameSync(dir, aside);
      fs.rmSync(aside, { recursive: true, force: true });
    }
    try {
      fs.renameSync(temp, dir);
    } catch (e) {
      // Lost a race with a concurrent first start: use the winner's folder if it is good.
      const code = (e as NodeJS.ErrnoException).code;
      if ((code === "ENOTEMPTY" || code === "EEXIST") && verifyNativeDir(dir, bundle) === null) return;
      throw e;
    }
  } finally {
    fs.rmSync(temp, { recursive: true, force: true });
  }
}

function removeStaleTemps(parent: string, name: string): void {
  let entries: string[];
  try {
    entries = fs.readdirSync(parent);
  } catch {
    return;
  }
  const now = Date.now();
  for (const entry of entries) {
    if (!entry.startsWith(`${name}.tmp-`) && !entry.startsWith(`${name}.old-`)) continue;
    const full = path.join(parent, entry);
    try {
      if (now - fs.statSync(full).mtimeMs > STALE_TEMP_MS) fs.rmSync(full, { recursive: true, force: true });
    } catch {
      // Someone else is cleaning it up.
    }
  }
}

function randomSuffix(): string {
  return Math.random().toString(36).slice(2, 10);
}
