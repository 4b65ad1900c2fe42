/**
 * Makes the native libraries available to a compiled Lorehold executable.
 * MUST be the entry's first import: node-llama-cpp and onnxruntime-node, as
 * rewritten by scripts/build.ts, read their paths from the global set here
 * while their own modules evaluate (node-llama-cpp even reads a file in a
 * top-level await).
 *
 * From source it does nothing: `embeddedNatives` is null and the libraries
 * load from node_modules as usual.
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import { embeddedNatives } from "./embeddedNatives.ts";
import { NATIVE_GLOBAL, nativeLayout, type NativeBundle, type NativeGlobal } from "./nativeContract.ts";
import { checkBunTempDir } from "./checkBunTempDir.ts";
import { NativeDirError, type NativeDirAttempt } from "./NativeDirError.ts";
import { prepareNatives, type PreparedNatives } from "./prepareNatives.ts";

export interface NativeInfo {
  /** `node_modules`: running from source; `beside`: ./native next to the executable; `cache`: extracted copy. */
  source: "node_modules" | "beside" | "cache";
  dir: string | null;
  /** This start extracted the natives (first start, or a repair after `extractReason`). */
  extracted: boolean;
  extractReason: string | null;
  /** Cache locations passed over (read-only, noexec, ...). */
  skipped: NativeDirAttempt[];
  bundleId: string | null;
  target: string | null;
  /** Time spent locating, checking and possibly extracting, in ms. */
  prepareMs: number;
  /** LanceDB's .node stays embedded as is; Bun writes it to $TMPDIR when it is first required. */
  lancedb: "node_modules" | "embedded";
}

let info: NativeInfo = {
  source: "node_modules",
  dir: null,
  extracted: false,
  extractReason: null,
  skipped: [],
  bundleId: null,
  target: null,
  prepareMs: 0,
  lancedb: "node_modules",
};

if (embeddedNatives) info = setUp(embeddedNatives);

/** Where the native libraries came from: for the startup log and /readyz. */
export function nativeInfo(): NativeInfo {
  return info;
}

function setUp(bundle: NativeBundle): NativeInfo {
  const started = performance.now();
  let prepared: PreparedNatives;
  try {
    prepared = prepareNatives(bundle);
    checkBunTempDir();
  } catch (e) {
    if (!(e instanceof NativeDirError)) throw e;
    // Nothing can run without the natives, and a stack trace into the bundle helps nobody.
    console.error(`lorehold: ${e.message}`);
    process.exit(78); // EX_CONFIG
  }
  installGlobal(prepared.dir, bundle);
  return {
    source: prepared.source,
    dir: prepared.dir,
    extracted: prepared.extracted,
    extractReason: prepared.extractReason,
    skipped: prepared.skipped,
    bundleId: bundle.id,
    target: bundle.target,
    prepareMs: Math.round((performance.now() - started) * 10) / 10,
    lancedb: "embedded",
  };
}

function installGlobal(dir: string, bundle: NativeBundle): void {
  const llamaRoot = path.join(dir, nativeLayout.llamaPackageRoot);
  const value: NativeGlobal = {
    dir,
    llamaFileUrl: (relativePath) => pathToFileURL(path.join(llamaRoot, relativePath)).href,
    llamaBinsDir: path.join(dir, nativeLayout.llamaBinsDir),
    llamaPackageVersion: bundle.llamaPackageVersion,
    onnxruntimeBindingPath: path.join(dir, nativeLayout.onnxruntimeDir, nativeLayout.onnxruntimeBinding),
  };
  Object.defineProperty(globalThis, NATIVE_GLOBAL, { value, enumerable: false, writable: false, configurable: false });
}
