import { nativeGlobalExpression } from "../nativeGlobalExpression.ts";
import { replaceExactly, type SourcePatch } from "./types.ts";

/**
 * onnxruntime-node loads its binding with a template-literal require
 * (`../bin/napi-v6/${platform}/${arch}/onnxruntime_binding.node`) that the
 * bundler cannot follow and that points into node_modules, which a
 * compiled executable does not have. It becomes a require of the extracted
 * binding, whose RUNPATH ($ORIGIN) finds libonnxruntime.so.1 next to it.
 */
export const onnxruntimeBinding: SourcePatch = {
  name: "onnxruntime-node binding → runtime folder",
  package: "onnxruntime-node",
  files: /[\\/]node_modules[\\/]onnxruntime-node[\\/]dist[\\/]binding\.js$/,
  apply(code) {
    return replaceExactly(
      code,
      "require(`../bin/napi-v6/${process.platform}/${process.arch}/onnxruntime_binding.node`)",
      `require(${nativeGlobalExpression}.onnxruntimeBindingPath)`,
      1,
      "onnxruntime-node binding require",
    );
  },
};

/**
 * transformers.js loads onnxruntime-node through `createRequire(import.meta.url)`,
 * which the bundler leaves as a run-time lookup in a node_modules that is not
 * there. A plain `require` makes Bun bundle onnxruntime-node (and so the
 * patch above) into the executable.
 */
export const transformersOnnxRequire: SourcePatch = {
  name: "transformers.js onnxruntime-node require bundled",
  package: "@huggingface/transformers",
  files: /[\\/]node_modules[\\/]@huggingface[\\/]transformers[\\/]dist[\\/]transformers\.node\.m?js$/,
  apply(code) {
    return replaceExactly(code, 'requireFromHere("onnxruntime-node")', 'require("onnxruntime-node")', 1, "transformers.js onnxruntime-node require");
  },
};
