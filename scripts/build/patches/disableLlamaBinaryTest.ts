import type { SourcePatch } from "./types.ts";

/**
 * Before loading a prebuilt binary on Linux, node-llama-cpp forks
 * `testBindingBinary.js` as a child Node process to see whether it crashes.
 * A compiled executable has no such file to fork (it would re-run the whole
 * app), and our CPU prebuilt is the one the library would pick anyway, so
 * the test is replaced by "compatible". The module's child-process half
 * (TEST_BINDING_CP) goes too.
 */
export const disableLlamaBinaryTest: SourcePatch = {
  name: "node-llama-cpp binary self-test disabled",
  package: "node-llama-cpp",
  files: /[\\/]node_modules[\\/]node-llama-cpp[\\/]dist[\\/]bindings[\\/]utils[\\/]testBindingBinary\.js$/,
  apply(code) {
    if (!code.includes("export async function testBindingBinary(")) throw new Error("testBindingBinary.js no longer exports testBindingBinary(); update the patch");
    return [
      "// Replaced by scripts/build/patches/disableLlamaBinaryTest.ts: a compiled executable cannot fork itself.",
      "export async function testBindingBinary() {",
      "    return true;",
      "}",
      "",
    ].join("\n");
  },
};
