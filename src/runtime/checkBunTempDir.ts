import os from "node:os";
import { checkCanExecuteIn } from "./checkLoadable.ts";
import { NativeDirError } from "./NativeDirError.ts";

/**
 * LanceDB's .node is embedded as is: Bun writes it to $TMPDIR (read once at
 * process start, so we cannot redirect it) and dlopen()s it from there. On a
 * noexec or read-only $TMPDIR that fails later with LanceDB's misleading
 * "npm has a bug related to optional dependencies". Checked up front with a
 * tiny file, so the operator gets the real cause.
 */
export function checkBunTempDir(): void {
  const dir = os.tmpdir();
  let problem: string | null;
  try {
    problem = checkCanExecuteIn(dir);
  } catch (e) {
    problem = `it is not writable (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
  }
  if (problem)
    throw new NativeDirError(
      `The temporary directory ${dir} cannot hold LanceDB's native library, which Bun extracts there when it loads: ${problem}. ` +
        "Set TMPDIR to a writable directory on a filesystem mounted without `noexec`.",
    );
}
