import fs from "node:fs";
import path from "node:path";

/**
 * Returns a problem when shared objects in `dir` could not be dlopen()ed, else
 * null. On Linux, access(X_OK) on a regular file fails with EACCES when its
 * filesystem is mounted `noexec` (the files are written 0755), which is the
 * usual trap with /tmp and /dev/shm on hardened hosts. Checking up front
 * turns a cryptic "failed to map segment from shared object" later into a
 * clear message now.
 */
export function checkLoadable(dir: string, probeFile: string): string | null {
  try {
    fs.accessSync(path.join(dir, probeFile), fs.constants.X_OK);
    return null;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EACCES" || code === "EPERM") return "its filesystem does not allow executing files (mounted noexec?)";
    return `cannot check ${probeFile}: ${(e as Error).message}`;
  }
}

/**
 * Like checkLoadable, for a folder about to receive libraries: a tiny 0755
 * file is written, checked and removed, so a noexec mount is found before
 * ~75 MB are extracted onto it. Write errors (read-only, permissions) throw.
 */
export function checkCanExecuteIn(dir: string): string | null {
  const name = `.lorehold-exec-check-${process.pid}`;
  const file = path.join(dir, name);
  try {
    fs.writeFileSync(file, "#!/bin/sh\n", { mode: 0o755 });
    return checkLoadable(dir, name);
  } finally {
    fs.rmSync(file, { force: true });
  }
}

/**
 * A folder under a shared temp dir must belong to us and be closed to
 * others, or another local user could swap in a library we would load.
 */
export function checkPrivate(dir: string): string | null {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch {
    return null; // Not there yet: it will be created with mode 0700.
  }
  const uid = typeof process.getuid === "function" ? process.getuid() : stat.uid;
  if (stat.uid !== uid) return `it is owned by uid ${stat.uid}, not by this user (${uid})`;
  if ((stat.mode & 0o022) !== 0) return "it is writable by other users";
  return null;
}
