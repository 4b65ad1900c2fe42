import { extensionOf } from "./text.ts";

/**
 * What in an archive is a build of something else, judged per folder rather than archive-wide:
 * one archive often holds several projects, or a project whose data folder has a build-like name.
 */

// Files only a compiler, linker or packager writes, and programs: what makes a `bin/` folder build output.
const BUILD_ARTEFACT_EXT = new Set([
  ".exe", ".dll", ".so", ".dylib", ".o", ".obj", ".a", ".lib", ".pdb", ".mdb", ".ilk", ".exp", ".class", ".jar", ".war",
  ".pyc", ".pyo", ".wasm", ".elf", ".app", ".apk", ".ipa", ".msi", ".nupkg", ".pck", ".node", ".bin", ".out",
  ".sh", ".bat", ".cmd", ".ps1", ".command",
]);
const BUILD_ARTEFACT_NAME = /\.(?:deps|runtimeconfig(?:\.dev)?)\.json$|\.dll\.config$|\.exe\.config$/i;

/** A file a build writes (or a program), not data a game reads: by extension, or no extension at all (a launcher). */
function isBuildArtefact(path: string): boolean {
  const base = path.slice(path.lastIndexOf("/") + 1);
  if (!base.includes(".") || BUILD_ARTEFACT_NAME.test(base)) return true;
  return BUILD_ARTEFACT_EXT.has(extensionOf(base));
}

// A build configuration's folder below bin/ (bin/Debug/net8.0/, bin/x64/Release/): what compilers lay out.
const BUILD_CONFIG_DIR = /^(?:debug|release|x64|x86|win32|win64|arm64|anycpu|any cpu|net\d[\w.-]*|netcoreapp[\w.-]*|netstandard[\w.-]*|(?:win|linux|osx)-(?:x64|x86|arm64))$/i;

/**
 * `bin/` folders (by their path, `game/bin/`) that hold data, not build output. A manifest lists only
 * scannable types, so a build is known by what of it shows: a configuration folder (bin/Debug/net8.0/),
 * a build tool's file (Game.deps.json), or an object file, library or executable where the paths include
 * them. A `bin/` with none of these holds data (OpenXcom keeps its YAML rules and language files there);
 * a `bin/` with any is build output whole: data files beside a program there are copies the build made.
 */
export function dataBinFolders(paths: string[]): Set<string> {
  const built = new Map<string, boolean>();
  for (const p of paths) {
    const parts = p.split(/[\\/]+/).filter(Boolean);
    const at = parts.findIndex((d, i) => i < parts.length - 1 && d.toLowerCase() === "bin");
    if (at < 0) continue;
    const folder = parts.slice(0, at + 1).join("/");
    const byLayout = parts.slice(at + 1, -1).some((d) => BUILD_CONFIG_DIR.test(d));
    built.set(folder, (built.get(folder) ?? false) || byLayout || isBuildArtefact(p));
  }
  return new Set([...built].filter(([, b]) => !b).map(([folder]) => folder));
}

// Folders a story or a game is published into, next to its sources.
const PUBLISH_DIRS = new Set(["dist", "build", "builds", "docs", "public", "out", "output", "release", "releases", "www", "web", "site", "bin", "export", "exports"]);

function dirOf(path: string): string {
  const parts = path.split(/[\\/]+/).filter(Boolean);
  parts.pop();
  return parts.join("/");
}

/**
 * Decides whether a compiled file (a published Twine HTML, a compiled Ink JSON) is built from source
 * files of the given extensions in the same project: the sources sit in the compiled file's folder or
 * below it, or the compiled file sits in a publish folder (`dist/`, `docs/` …) whose parent holds
 * them. Another project's sources elsewhere in the archive do not count: a story published with no
 * source beside it is the only copy of its text.
 */
export function sourcesBeside(paths: string[], sourceExtensions: string[]): (compiledPath: string) => boolean {
  const exts = new Set(sourceExtensions);
  // Every folder that holds a source in its subtree ("" is the archive's root).
  const holds = new Set<string>();
  for (const p of paths) {
    if (!exts.has(extensionOf(p))) continue;
    let d = dirOf(p);
    for (;;) {
      if (holds.has(d)) break;
      holds.add(d);
      if (d === "") break;
      d = d.includes("/") ? d.slice(0, d.lastIndexOf("/")) : "";
    }
  }
  return (compiledPath) => {
    if (holds.size === 0) return false;
    const dir = dirOf(compiledPath);
    if (holds.has(dir)) return true;
    const name = dir.slice(dir.lastIndexOf("/") + 1).toLowerCase();
    const parent = dir.includes("/") ? dir.slice(0, dir.lastIndexOf("/")) : "";
    return dir !== "" && PUBLISH_DIRS.has(name) && holds.has(parent);
  };
}
