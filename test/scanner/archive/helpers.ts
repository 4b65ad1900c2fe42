import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AcceptedFile, ManifestEntry } from "../../../src/scanner/archive/types.ts";
import { sha256Hex, toBytes } from "../../support/zipBuilder.ts";

/** A temp folder for this test file's archives, removed by `cleanup`. */
export function tempArchives() {
  const dir = mkdtempSync(join(tmpdir(), "lorehold-archive-"));
  let n = 0;
  return {
    write(bytes: Uint8Array, name = `a${n++}.zip`): string {
      const path = join(dir, name);
      writeFileSync(path, bytes);
      return path;
    },
    path(name: string): string {
      return join(dir, name);
    },
    cleanup(): void {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The manifest line a studio would send for this content. */
export function listed(relativePath: string, data: Uint8Array | string): ManifestEntry {
  const bytes = toBytes(data);
  return { relativePath, sizeBytes: bytes.length, contentHash: sha256Hex(bytes) };
}

/** An onFile that records what it got. */
export function collector() {
  const files: AcceptedFile[] = [];
  return {
    files,
    onFile: async (f: AcceptedFile) => {
      files.push(f);
    },
    paths: () => files.map((f) => f.relativePath),
  };
}
