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

// Files that sit at a project's top: its readme, a package or engine project file, a Twee tool's config.
const PROJECT_MARKER = /^(?:readme(?:\.[\w.-]+)?|package\.json|project\.godot|[\w.-]+\.twee-config\.(?:ya?ml|json))$/i;

function parentOf(dir: string): string {
  return dir.includes("/") ? dir.slice(0, dir.lastIndexOf("/")) : "";
}

/**
 * Decides whether a compiled file (a published Twine HTML, a compiled Ink JSON) is built from source
 * files of the given extensions in the same project. A project's top is the nearest folder above the
 * file with a readme, a package or engine project file (Unity's is the folder above ProjectSettings/):
 * sources anywhere in it count (Assets/Ink/story.ink for Assets/Resources/story.json). With no such
 * folder, the sources must sit in the compiled file's folder or below it, or the file in a publish
 * folder (`dist/`, `docs/` …) whose parent holds them. Another project's sources elsewhere in the
 * archive never count: a story published with no source beside it is the only copy of its text.
 */
export function sourcesBeside(paths: string[], sourceExtensions: string[]): (compiledPath: string) => boolean {
  const exts = new Set(sourceExtensions);
  // Every folder that holds a source in its subtree ("" is the archive's root), and every project top.
  const holds = new Set<string>();
  const tops = new Set<string>();
  for (const p of paths) {
    const dir = dirOf(p);
    const base = p.slice(p.lastIndexOf("/") + 1);
    if (PROJECT_MARKER.test(base)) tops.add(dir);
    if (/(?:^|\/)ProjectSettings$/i.test(dir)) tops.add(parentOf(dir));
    if (!exts.has(extensionOf(p))) continue;
    for (let d = dir; ; d = parentOf(d)) {
      if (holds.has(d)) break;
      holds.add(d);
      if (d === "") break;
    }
  }
  return (compiledPath) => {
    if (holds.size === 0) return false;
    const dir = dirOf(compiledPath);
    for (let d = dir; ; d = parentOf(d)) {
      if (tops.has(d)) return holds.has(d);
      if (d === "") break;
    }
    if (holds.has(dir)) return true;
    const name = dir.slice(dir.lastIndexOf("/") + 1).toLowerCase();
    return dir !== "" && PUBLISH_DIRS.has(name) && holds.has(parentOf(dir));
  };
}
