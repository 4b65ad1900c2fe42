import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { hashNativeFile } from "../../src/runtime/hashNativeFile.ts";
import { nativeLayout, type NativeBundle, type NativeFile } from "../../src/runtime/nativeContract.ts";
import { packageDir, type NativeTarget } from "./nativeTarget.ts";

/** A native file and where the build reads it from. */
export interface CollectedFile extends Omit<NativeFile, "embedded"> {
  source: string;
}

export interface CollectedNatives {
  bundle: Omit<NativeBundle, "files" | "mode">;
  files: CollectedFile[];
  totalBytes: number;
}

/**
 * Lists every file the runtime folder needs for `target`, with sizes and
 * hashes. The bundle id hashes all of them, so a dependency upgrade gets a
 * fresh cache folder while rebuilding the same code reuses the old one.
 */
export function collectNatives(root: string, target: NativeTarget, version: string): CollectedNatives {
  const files: CollectedFile[] = [];
  const add = (source: string, dest: string, executable: boolean) => {
    const content = fs.readFileSync(source);
    files.push({ source, path: dest, size: content.length, xxh3: hashNativeFile(content), executable });
  };

  // llama.cpp: the addon, libllama/libggml and every libggml-cpu-<arch>.so, which
  // ggml picks from at run time by CPU features, so all of them ship.
  const llamaPackage = packageDir(target.llamaPackage, root);
  const llamaBins = path.join(llamaPackage, "bins", target.llamaBuildFolder);
  const metadata = JSON.parse(fs.readFileSync(path.join(llamaBins, "_nlcBuildMetadata.json"), "utf8"));
  if (metadata.buildOptions?.gpu !== false)
    throw new Error(`${target.llamaPackage} is a ${metadata.buildOptions?.gpu} build; only the CPU build may be embedded.`);
  for (const name of fs.readdirSync(llamaBins).sort())
    add(path.join(llamaBins, name), `${nativeLayout.llamaBinsDir}/${target.llamaBuildFolder}/${name}`, /\.(node|so)(\.|$)/.test(name));

  // onnxruntime: the binding finds libonnxruntime.so.1 through RUNPATH=$ORIGIN, so they stay side by side.
  const onnxDir = path.join(packageDir("onnxruntime-node", root), target.onnxruntimeDir);
  for (const name of fs.readdirSync(onnxDir).sort())
    add(path.join(onnxDir, name), `${nativeLayout.onnxruntimeDir}/${name}`, true);

  // node-llama-cpp's data files, read relative to its (rewritten) import.meta.url:
  // package.json (version check against the platform package), the release
  // file read by a top-level await, and the GBNF grammars behind LlamaGrammar.getFor().
  const llamaRoot = packageDir("node-llama-cpp", root);
  const llamaVersion = JSON.parse(fs.readFileSync(path.join(llamaRoot, "package.json"), "utf8")).version as string;
  add(path.join(llamaRoot, "package.json"), `${nativeLayout.llamaPackageRoot}/package.json`, false);
  add(path.join(llamaRoot, "llama", "binariesGithubRelease.json"), `${nativeLayout.llamaPackageRoot}/llama/binariesGithubRelease.json`, false);
  const grammars = path.join(llamaRoot, "llama", "grammars");
  for (const name of fs.readdirSync(grammars).filter((n) => n.endsWith(".gbnf")).sort())
    add(path.join(grammars, name), `${nativeLayout.llamaPackageRoot}/llama/grammars/${name}`, false);

  const llamaPlatformVersion = JSON.parse(fs.readFileSync(path.join(llamaPackage, "package.json"), "utf8")).version;
  if (llamaPlatformVersion !== llamaVersion)
    throw new Error(`${target.llamaPackage} ${llamaPlatformVersion} does not match node-llama-cpp ${llamaVersion}; node-llama-cpp would ignore it.`);

  packageDir(target.lancedbPackage, root); // Embedded by Bun itself; fail now rather than at run time.

  const id = createHash("sha256")
    .update(files.map((f) => `${f.path}\0${f.size}\0${f.xxh3}\n`).join(""))
    .digest("hex")
    .slice(0, 12);
  return {
    bundle: { version, id, target: target.bunTarget, llamaBuildFolder: target.llamaBuildFolder, llamaPackageVersion: llamaVersion },
    files,
    totalBytes: files.reduce((n, f) => n + f.size, 0),
  };
}
