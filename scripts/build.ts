/**
 * Builds the single Lorehold executable.
 *
 *   bun scripts/build.ts [--entry src/main.ts] [--outfile dist/lorehold]
 *                        [--target bun-linux-x64] [--natives embed|beside]
 *
 * The entry must import src/runtime/native.ts first. What the build rewrites
 * and why: scripts/build/patches/*.ts; the runtime half: src/runtime/native.ts.
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { buildExecutable, mb } from "./build/buildExecutable.ts";

const { values } = parseArgs({
  options: {
    entry: { type: "string", default: "src/main.ts" },
    outfile: { type: "string", default: "dist/lorehold" },
    target: { type: "string" },
    natives: { type: "string", default: "embed" },
    help: { type: "boolean", short: "h" },
  },
  strict: true,
});

if (values.help) {
  console.log("usage: bun scripts/build.ts [--entry src/main.ts] [--outfile dist/lorehold] [--target bun-linux-x64] [--natives embed|beside]");
  process.exit(0);
}
if (values.natives !== "embed" && values.natives !== "beside") {
  console.error(`--natives must be "embed" or "beside", got "${values.natives}"`);
  process.exit(2);
}

const root = path.resolve(import.meta.dir, "..");
try {
  const result = await buildExecutable({
    root,
    entry: values.entry!,
    outfile: values.outfile!,
    target: values.target,
    natives: values.natives,
    log: (line) => console.error(`build: ${line}`),
  });
  for (const [patch, files] of Object.entries(result.patches)) console.error(`build: patch "${patch}": ${files.length} file(s)`);
  for (const [stub, specifiers] of Object.entries(result.stubs)) console.error(`build: stub "${stub}": ${specifiers.join(", ") || "unused"}`);
  console.error(
    `build: ${path.relative(process.cwd(), result.outfile)} ${mb(result.bytes)} for ${result.target} in ${(result.buildMs / 1000).toFixed(1)} s ` +
      `(natives ${mb(result.nativeBytes)}, LanceDB ${mb(result.lancedbBytes)}${result.nativeDir ? `, natives in ${path.relative(process.cwd(), result.nativeDir)}/` : ""})`,
  );
} catch (e) {
  // Bun.build throws an AggregateError whose `errors` hold the bundler's messages (file:line).
  for (const detail of e instanceof AggregateError ? e.errors : []) console.error(String(detail));
  console.error(`build failed: ${(e as Error).message}`);
  process.exit(1);
}
