import fs from "node:fs";
import path from "node:path";
import type { NativeBundle } from "../../src/runtime/nativeContract.ts";
import { collectNatives } from "./collectNatives.ts";
import { embeddedNativesModule } from "./embeddedNativesModule.ts";
import { loreholdPlugin } from "./loreholdPlugin.ts";
import { resolveNativeTarget } from "./nativeTarget.ts";
import { disableLlamaBinaryTest } from "./patches/disableLlamaBinaryTest.ts";
import { llamaImportMetaUrl } from "./patches/llamaImportMetaUrl.ts";
import { onnxruntimeBinding, transformersOnnxRequire } from "./patches/onnxruntimeBinding.ts";
import { stubLlamaPlatformPackages } from "./patches/stubLlamaPlatformPackages.ts";
import { stubSharp } from "./patches/stubSharp.ts";
import { writeNativeFolder } from "./writeNativeFolder.ts";
import { studioModule } from "./studioModule.ts";

/** The scan's extraction thread (src/scanner/worker/idleThread.ts starts it as a Worker). */
export const EXTRACTION_THREAD_ENTRY = "src/scanner/worker/extractionThreadEntry.ts";
/** An embedding thread (src/vectors/threads/EmbedderThreads.ts starts them as Workers). */
export const EMBEDDER_THREAD_ENTRY = "src/vectors/threads/embedderThreadEntry.ts";

export interface BuildExecutableOptions {
  /** Project root (holds package.json and node_modules). */
  root: string;
  entry: string;
  outfile: string;
  /** Bun compile target; defaults to this machine. */
  target?: string;
  /** `embed` (default): one file. `beside`: a smaller executable plus `native/` next to it. */
  natives?: NativeBundle["mode"];
  log?: (line: string) => void;
}

export interface BuildExecutableResult {
  outfile: string;
  bytes: number;
  /** Natives we pack (llama.cpp + onnxruntime + node-llama-cpp data files). */
  nativeBytes: number;
  nativeFiles: number;
  /** LanceDB's .node, which Bun embeds on its own. */
  lancedbBytes: number;
  bundleId: string;
  target: string;
  buildMs: number;
  nativeDir: string | null;
  patches: Record<string, string[]>;
  stubs: Record<string, string[]>;
}

/** Bundles `entry` into a standalone executable with its native libraries (see RUNTIME-NOTES "Single executable"). */
export async function buildExecutable(options: BuildExecutableOptions): Promise<BuildExecutableResult> {
  const started = performance.now();
  const log = options.log ?? (() => {});
  const root = path.resolve(options.root);
  const mode = options.natives ?? "embed";
  const outfile = path.resolve(options.outfile);
  const target = resolveNativeTarget(options.target);
  const version = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).version as string;

  const natives = collectNatives(root, target, version);
  log(`natives for ${target.bunTarget}: ${natives.files.length} files, ${mb(natives.totalBytes)} (bundle ${natives.bundle.id}, ${mode})`);

  const lorehold = loreholdPlugin({
    patches: [disableLlamaBinaryTest, llamaImportMetaUrl, onnxruntimeBinding, transformersOnnxRequire],
    stubs: [stubLlamaPlatformPackages(target.llamaPackage), stubSharp],
    replacements: {
      [path.join(root, "src/runtime/embeddedNatives.ts")]: embeddedNativesModule(natives, mode),
      [path.join(root, "src/studio/embeddedStudio.ts")]: await studioModule(root, log),
    },
  });

  fs.mkdirSync(path.dirname(outfile), { recursive: true });
  const result = await Bun.build({
    // The worker threads' code (the scanner's extraction thread, the embedding threads) is bundled as further
    // entry points: Bun embeds them in the executable, and `new Worker(new URL(...))` finds them there.
    entrypoints: [path.resolve(root, options.entry), path.resolve(root, EXTRACTION_THREAD_ENTRY), path.resolve(root, EMBEDDER_THREAD_ENTRY)],
    target: "bun",
    compile: {
      target: target.bunTarget,
      outfile,
      // The server's configuration is explicit (file, env, flags): a stray
      // .env or bunfig.toml (which can preload code) in the working directory must not change it.
      autoloadDotenv: false,
      autoloadBunfig: false,
    },
    minify: { syntax: true, whitespace: true },
    // Any sourcemap setting embeds the map in the executable (stack traces name
    // src/... files); the copy Bun also writes beside it is removed below.
    sourcemap: "external",
    // No `bytecode: true`: it needs CommonJS output, and node-llama-cpp and the entry use top-level await.
    metafile: true,
    plugins: [lorehold.plugin],
  });
  if (!result.success) throw new AggregateError(result.logs, `bun build failed for ${options.entry}`);
  fs.rmSync(`${outfile}.map`, { force: true });
  const inputs = Object.keys(result.metafile?.inputs ?? {});
  try {
    lorehold.assertAllPatchesApplied(inputs);
    assertNoGpuVariants(inputs);
  } catch (e) {
    fs.rmSync(outfile, { force: true }); // never leave a broken executable behind
    throw e;
  }

  const nativeDir = mode === "beside" ? writeNativeFolder(path.join(path.dirname(outfile), "native"), natives) : null;
  const bytes = fs.statSync(outfile).size;
  const usage = lorehold.usage();
  return {
    outfile,
    bytes,
    nativeBytes: natives.totalBytes,
    nativeFiles: natives.files.length,
    lancedbBytes: lancedbNodeBytes(root, target.lancedbPackage),
    bundleId: natives.bundle.id,
    target: target.bunTarget,
    buildMs: Math.round(performance.now() - started),
    nativeDir,
    ...usage,
  };
}

/** CUDA (~540 MB) and Vulkan (~70 MB) builds are installed as optional deps; none of their files may reach the bundle. */
function assertNoGpuVariants(inputs: string[]): void {
  // Stubbed packages show up as `lorehold-stub:<name>`: those carry no files.
  const gpu = inputs.filter((p) => !p.includes("lorehold-stub:") && /@node-llama-cpp[\\/][^\\/]*-(cuda|vulkan|metal)/.test(p));
  if (gpu.length) throw new Error(`GPU variants leaked into the bundle: ${gpu.join(", ")}`);
}

function lancedbNodeBytes(root: string, lancedbPackage: string): number {
  const dir = path.join(root, "node_modules", lancedbPackage);
  return fs
    .readdirSync(dir)
    .filter((n) => n.endsWith(".node"))
    .reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0);
}

export function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
