/**
 * Raised when no folder can hold the native libraries. Its message is meant
 * for the operator as is: it names every place tried, why each failed, and the
 * two ways out (LOREHOLD_NATIVE_DIR, or a `native/` folder beside the executable).
 */
export class NativeDirError extends Error {
  constructor(
    message: string,
    readonly attempts: readonly NativeDirAttempt[] = [],
  ) {
    super(message);
    this.name = "NativeDirError";
  }
}

export interface NativeDirAttempt {
  dir: string;
  problem: string;
}

/** The line every native-folder error ends with. */
export const nativeDirHint =
  "Set LOREHOLD_NATIVE_DIR to a writable directory on a filesystem mounted without `noexec` " +
  "(Lorehold extracts its native libraries into a versioned folder inside it), " +
  "or place the `native/` folder produced by `bun scripts/build.ts --natives beside` next to the executable.";
