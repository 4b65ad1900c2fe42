import fs from "node:fs";
import path from "node:path";
import { nativeLayout } from "../../src/runtime/nativeContract.ts";
import type { CollectedNatives } from "./collectNatives.ts";

/**
 * For `--natives beside`: lays the natives out next to the executable, in
 * the same layout the runtime extracts to, so src/runtime/native.ts uses
 * them in place (read-only images, no extraction, smaller executable).
 */
export function writeNativeFolder(dir: string, natives: CollectedNatives): string {
  fs.rmSync(dir, { recursive: true, force: true });
  for (const file of natives.files) {
    const target = path.join(dir, file.path);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(file.source, target);
    fs.chmodSync(target, file.executable ? 0o755 : 0o644);
  }
  const manifest = {
    bundleId: natives.bundle.id,
    version: natives.bundle.version,
    target: natives.bundle.target,
    files: natives.files.map(({ path, size, xxh3 }) => ({ path, size, xxh3 })),
  };
  fs.writeFileSync(path.join(dir, nativeLayout.manifest), JSON.stringify(manifest, null, 2) + "\n");
  return dir;
}
