import { nativeGlobalExpression } from "../nativeGlobalExpression.ts";
import type { SourcePatch } from "./types.ts";

const DIST = /[\\/]node_modules[\\/]node-llama-cpp[\\/](dist[\\/].*\.js)$/;

/**
 * node-llama-cpp finds its data (package.json, llama/grammars, the release
 * file read by a top-level await, prebuilt bins) from `import.meta.url`. In
 * a compiled executable that is `/$bunfs/root/...`, where none of it
 * exists. Each file's URL becomes the same relative file under the runtime
 * folder's `node-llama-cpp/` stand-in, so every `path.join(__dirname, "..", ...)`
 * in the library lands on the extracted copy.
 */
export const llamaImportMetaUrl: SourcePatch = {
  name: "node-llama-cpp import.meta.url → runtime folder",
  package: "node-llama-cpp",
  files: DIST,
  apply(code, file) {
    const relative = DIST.exec(file)![1]!.replaceAll("\\", "/");
    return code.replace(/\bimport\.meta\.url\b/g, `${nativeGlobalExpression}.llamaFileUrl(${JSON.stringify(relative)})`);
  },
};
