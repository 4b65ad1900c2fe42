import fs from "node:fs";
import path from "node:path";

/** Which native packages serve one Bun compile target. */
export interface NativeTarget {
  /** Bun compile target, e.g. `bun-linux-x64`. */
  bunTarget: Bun.Build.CompileTarget;
  /** The CPU-only node-llama-cpp prebuilt package: GPU variants (CUDA ~540 MB, Vulkan ~70 MB) are never embedded. */
  llamaPackage: string;
  /** Folder inside that package's `bins/`, also the name node-llama-cpp looks up. */
  llamaBuildFolder: string;
  /** onnxruntime-node's folder for this platform/arch. */
  onnxruntimeDir: string;
  /** LanceDB's platform package: Bun embeds its .node itself; we only check it is installed. */
  lancedbPackage: string;
}

/**
 * Only glibc Linux targets: node-llama-cpp's Linux prebuilts and
 * onnxruntime-node's Linux binaries both need glibc.
 */
const TARGETS: Record<string, Omit<NativeTarget, "bunTarget">> = {
  "linux-x64": {
    llamaPackage: "@node-llama-cpp/linux-x64",
    llamaBuildFolder: "linux-x64",
    onnxruntimeDir: "bin/napi-v6/linux/x64",
    lancedbPackage: "@lancedb/lancedb-linux-x64-gnu",
  },
  "linux-arm64": {
    llamaPackage: "@node-llama-cpp/linux-arm64",
    llamaBuildFolder: "linux-arm64",
    onnxruntimeDir: "bin/napi-v6/linux/arm64",
    lancedbPackage: "@lancedb/lancedb-linux-arm64-gnu",
  },
};

/** `bun-linux-x64-modern` → `linux-x64`; no target means this machine. */
export function resolveNativeTarget(bunTarget?: string): NativeTarget {
  const target = (bunTarget ?? `bun-${process.platform}-${process.arch}`) as Bun.Build.CompileTarget;
  const match = /^bun-(linux)-(x64|arm64)(?:-(?:baseline|modern))?(?:-glibc)?$/.exec(target);
  const key = match ? `${match[1]}-${match[2]}` : null;
  const entry = key ? TARGETS[key] : undefined;
  if (!entry)
    throw new Error(`Unsupported build target ${target}: Lorehold executables are built for ${Object.keys(TARGETS).map((k) => `bun-${k}`).join(", ")} (glibc).`);
  return { bunTarget: target, ...entry };
}

/** Root folder of an installed package, or a clear error naming it. */
export function packageDir(name: string, root: string): string {
  const dir = path.join(root, "node_modules", name);
  if (!fs.existsSync(path.join(dir, "package.json")))
    throw new Error(`${name} is not installed in ${root}/node_modules; it is needed for this build target. Run \`bun install\` (on the target platform, or with --os/--cpu for another one).`);
  return dir;
}
