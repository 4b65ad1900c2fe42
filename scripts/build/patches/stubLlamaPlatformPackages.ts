import { nativeGlobalExpression } from "../nativeGlobalExpression.ts";
import type { ModuleStub } from "./types.ts";

/**
 * node-llama-cpp `import()`s every `@node-llama-cpp/<platform>` package by
 * literal name. Most are not installed (the bundler would fail on them) and
 * the installed GPU ones must not be embedded, so all become stubs:
 * - the CPU package of the build target reports the runtime folder's
 *   `llama/` as its bins dir (node-llama-cpp then loads
 *   `llama/<target>/llama-addon.node` from there);
 * - every other one has no bins dir, which node-llama-cpp treats as "not
 *   installed" and falls back to the CPU build.
 */
export function stubLlamaPlatformPackages(targetPackage: string): ModuleStub {
  return {
    name: "@node-llama-cpp/* platform packages",
    specifiers: /^@node-llama-cpp\/[^/]+$/,
    contents(specifier) {
      if (specifier !== targetPackage)
        return `// ${specifier}: not part of this executable.\nexport function getBinsDir() {\n    return undefined;\n}\n`;
      return [
        `// ${specifier}: natives live in the runtime folder prepared by src/runtime/native.ts.`,
        "export function getBinsDir() {",
        `    const native = ${nativeGlobalExpression};`,
        "    return { binsDir: native.llamaBinsDir, packageVersion: native.llamaPackageVersion };",
        "}",
        "",
      ].join("\n");
    },
  };
}
