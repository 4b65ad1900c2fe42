import os from "node:os";
import path from "node:path";

export interface NativeCacheCandidate {
  /** Parent folder; created if missing. */
  base: string;
  /** Where it came from, for error messages. */
  origin: "LOREHOLD_NATIVE_DIR" | "XDG_CACHE_HOME" | "HOME" | "TMPDIR";
  /** Shared temp dirs must be ours alone: anyone who can write there could plant a library we then load. */
  mustBePrivate: boolean;
}

/**
 * Where the embedded natives may be extracted, best first. The versioned
 * folder `native-<version>-<id>` is created inside the chosen base, so
 * builds never overwrite each other and nothing outside that name is touched.
 * An explicit LOREHOLD_NATIVE_DIR is the only candidate: the operator chose it.
 */
export function nativeCacheCandidates(env: NodeJS.ProcessEnv = process.env): NativeCacheCandidate[] {
  const explicit = env.LOREHOLD_NATIVE_DIR?.trim();
  if (explicit) return [{ base: path.resolve(explicit), origin: "LOREHOLD_NATIVE_DIR", mustBePrivate: false }];

  const candidates: NativeCacheCandidate[] = [];
  // XDG says relative values are invalid and must be ignored.
  const xdg = env.XDG_CACHE_HOME?.trim();
  if (xdg && path.isAbsolute(xdg)) candidates.push({ base: path.join(xdg, "lorehold"), origin: "XDG_CACHE_HOME", mustBePrivate: false });

  const home = safeHomedir(env);
  if (home) candidates.push({ base: path.join(home, ".cache", "lorehold"), origin: "HOME", mustBePrivate: false });

  const uid = typeof process.getuid === "function" ? process.getuid() : "user";
  const tmp = env.TMPDIR?.trim() || os.tmpdir();
  candidates.push({ base: path.join(tmp, `lorehold-${uid}`), origin: "TMPDIR", mustBePrivate: true });
  return candidates;
}

function safeHomedir(env: NodeJS.ProcessEnv): string | null {
  const fromEnv = env.HOME?.trim();
  if (fromEnv && path.isAbsolute(fromEnv)) return fromEnv;
  try {
    const h = os.homedir();
    return h && path.isAbsolute(h) ? h : null;
  } catch {
    return null;
  }
}
