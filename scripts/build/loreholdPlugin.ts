import fs from "node:fs";
import path from "node:path";
import type { BunPlugin } from "bun";
import type { ModuleStub, SourcePatch } from "./patches/types.ts";

export interface LoreholdPluginOptions {
  patches: SourcePatch[];
  stubs: ModuleStub[];
  /** Whole modules swapped for generated code, by absolute path. */
  replacements: Record<string, string>;
}

export interface LoreholdPlugin {
  plugin: BunPlugin;
  /** Files each patch changed and specifiers each stub served, for the build log. */
  usage(): { patches: Record<string, string[]>; stubs: Record<string, string[]> };
  /**
   * Throws when a patch changed nothing although its package is among the
   * bundle's `inputs` (metafile): its library moved on and the executable would break.
   */
  assertAllPatchesApplied(inputs: string[]): void;
}

const STUB_NAMESPACE = "lorehold-stub";

/**
 * One plugin for every rewrite the executable needs. Bun runs only the
 * first onLoad that answers for a file, so patches for the same file must
 * run from one callback, in order.
 */
export function loreholdPlugin({ patches, stubs, replacements }: LoreholdPluginOptions): LoreholdPlugin {
  const patched = new Map<string, Set<string>>(patches.map((p) => [p.name, new Set()]));
  const stubbed = new Map<string, Set<string>>(stubs.map((s) => [s.name, new Set()]));
  const replaced = new Map(Object.entries(replacements).map(([file, contents]) => [path.resolve(file), contents]));

  const plugin: BunPlugin = {
    name: "lorehold-executable",
    setup(build) {
      for (const stub of stubs) {
        build.onResolve({ filter: stub.specifiers }, (args) => {
          stubbed.get(stub.name)!.add(args.path);
          return { path: args.path, namespace: STUB_NAMESPACE };
        });
      }
      build.onLoad({ filter: /.*/, namespace: STUB_NAMESPACE }, (args) => {
        const stub = stubs.find((s) => s.specifiers.test(args.path));
        if (!stub) throw new Error(`no stub for ${args.path}`);
        return { contents: stub.contents(args.path), loader: "js" };
      });

      if (replaced.size) {
        build.onLoad({ filter: new RegExp([...replaced.keys()].map((p) => `^${escape(p)}$`).join("|")) }, (args) => ({
          contents: replaced.get(args.path)!,
          loader: "ts",
        }));
      }

      build.onLoad({ filter: new RegExp(patches.map((p) => `(?:${p.files.source})`).join("|")) }, (args) => {
        let code = fs.readFileSync(args.path, "utf8");
        for (const patch of patches) {
          if (!patch.files.test(args.path)) continue;
          const next = patch.apply(code, args.path);
          if (next !== code) patched.get(patch.name)!.add(args.path);
          code = next;
        }
        return { contents: code, loader: "js" };
      });
    },
  };

  const usage = () => ({
    patches: Object.fromEntries([...patched].map(([k, v]) => [k, [...v]])),
    stubs: Object.fromEntries([...stubbed].map(([k, v]) => [k, [...v]])),
  });
  return {
    plugin,
    usage,
    assertAllPatchesApplied(inputs) {
      const bundled = (pkg: string) => inputs.some((p) => p.replaceAll("\\", "/").includes(`node_modules/${pkg}/`));
      const missed = patches.filter((p) => patched.get(p.name)!.size === 0 && bundled(p.package)).map((p) => p.name);
      if (missed.length) throw new Error(`these build patches matched nothing (did a dependency change?): ${missed.join(", ")}`);
    },
  };
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
