/**
 * The contract between the build (scripts/build/**) and the runtime
 * (src/runtime/native.ts): where each native file lives inside a native
 * folder, and the global the rewritten library code reads its paths from.
 * Both sides import this file so the two can never drift apart.
 */

/**
 * Name of the global the patched node-llama-cpp / onnxruntime-node code reads.
 * It has to be a global: the rewrites live inside third-party modules that
 * cannot import our code, and it must be set before those modules evaluate.
 */
export const NATIVE_GLOBAL = "__loreholdNative";

/** Layout of a native folder (extracted cache dir, or `native/` beside the executable). */
export const nativeLayout = {
  /** `<dir>/llama/<buildFolder>/llama-addon.node` + its .so files: node-llama-cpp's "bins dir". */
  llamaBinsDir: "llama",
  /** `<dir>/onnxruntime/onnxruntime_binding.node` + libonnxruntime.so.1 (RUNPATH is $ORIGIN). */
  onnxruntimeDir: "onnxruntime",
  onnxruntimeBinding: "onnxruntime_binding.node",
  /**
   * `<dir>/node-llama-cpp/`: a stand-in for the package root. node-llama-cpp
   * derives data paths from `import.meta.url` (package.json, llama/grammars,
   * llama/binariesGithubRelease.json read by a top-level await); the build
   * rewrites `import.meta.url` to `<dir>/node-llama-cpp/dist/<file>`.
   */
  llamaPackageRoot: "node-llama-cpp",
  /** Written last during extraction; names the bundle id the folder holds. */
  manifest: "manifest.json",
} as const;

/** One file the executable carries (or expects in `native/`). */
export interface NativeFile {
  /** Path inside the native folder, `/`-separated. */
  path: string;
  size: number;
  /** xxHash3-64 of the content, 16 hex digits: cheap enough to check on every start (~30 ms for 80 MB). */
  xxh3: string;
  /** Where the embedded copy lives (`/$bunfs/...`); empty when built with `--natives beside`. */
  embedded: string;
  /** Shared objects get mode 0755 so a noexec mount is detectable with access(X_OK). */
  executable: boolean;
}

/** Everything the build tells the runtime about the natives it packed. */
export interface NativeBundle {
  /** Lorehold's package.json version. */
  version: string;
  /** Content hash of all files (12 hex digits): part of the cache folder name. */
  id: string;
  /** Bun compile target, e.g. `bun-linux-x64`. */
  target: string;
  /** `embed`: files are inside the executable; `beside`: a `native/` folder must ship next to it. */
  mode: "embed" | "beside";
  /** node-llama-cpp prebuilt folder name for this target, e.g. `linux-x64` (CPU only). */
  llamaBuildFolder: string;
  /** node-llama-cpp version: its platform-package stub must report the same one or it is ignored. */
  llamaPackageVersion: string;
  files: NativeFile[];
}

/** What the runtime publishes on `globalThis[NATIVE_GLOBAL]` for the rewritten library code. */
export interface NativeGlobal {
  dir: string;
  /** `file://<dir>/node-llama-cpp/<relativePath>`: replaces `import.meta.url` in node-llama-cpp's dist. */
  llamaFileUrl(relativePath: string): string;
  /** Returned by the stubbed `@node-llama-cpp/<platform>` package's getBinsDir(). */
  llamaBinsDir: string;
  llamaPackageVersion: string;
  /** Absolute path of onnxruntime_binding.node, required by the patched onnxruntime-node. */
  onnxruntimeBindingPath: string;
}
