import path from "node:path";
import { pathToFileURL } from "node:url";
import { NATIVE_GLOBAL, nativeLayout, type NativeGlobal } from "./nativeContract.ts";

/** The native paths a worker thread of a compiled executable needs, as a message can carry them (no functions). */
export interface ThreadNatives {
  dir: string;
  llamaBinsDir: string;
  llamaPackageVersion: string;
  onnxruntimeBindingPath: string;
}

/**
 * This thread's native paths for a worker it starts (null from source: libraries load from node_modules). A worker
 * has its own globals, and checking the extracted natives again there (native.ts hashes every file) would cost
 * each thread what the process already paid.
 */
export function nativesForThread(): ThreadNatives | null {
  const g = (globalThis as Record<string, unknown>)[NATIVE_GLOBAL] as NativeGlobal | undefined;
  if (!g) return null;
  return { dir: g.dir, llamaBinsDir: g.llamaBinsDir, llamaPackageVersion: g.llamaPackageVersion, onnxruntimeBindingPath: g.onnxruntimeBindingPath };
}

/** In a worker: publishes the paths its parent handed over, before any native library is imported. */
export function installThreadNatives(n: ThreadNatives | null): void {
  if (!n || NATIVE_GLOBAL in globalThis) return;
  const llamaRoot = path.join(n.dir, nativeLayout.llamaPackageRoot);
  const value: NativeGlobal = { ...n, llamaFileUrl: (relativePath) => pathToFileURL(path.join(llamaRoot, relativePath)).href };
  Object.defineProperty(globalThis, NATIVE_GLOBAL, { value, enumerable: false, writable: false, configurable: false });
}
