/**
 * A rewrite of one library's source, applied by loreholdPlugin while bundling.
 * `apply` returns the new code, or the same string when the file needs nothing.
 * Whenever its package is in the bundle, a patch must change at least one
 * file: when a dependency upgrade moves the code it targets, the build fails
 * instead of shipping an executable that breaks at run time.
 */
export interface SourcePatch {
  name: string;
  /** The npm package patched. */
  package: string;
  /** Matched against absolute module paths. */
  files: RegExp;
  apply(code: string, file: string): string;
}

/** A bare import replaced by generated code (packages that are absent or cannot be embedded). */
export interface ModuleStub {
  name: string;
  /** Matched against import specifiers. */
  specifiers: RegExp;
  contents(specifier: string): string;
}

/** Replaces exactly `count` occurrences or throws: patches must not silently miss or over-match. */
export function replaceExactly(code: string, search: string | RegExp, replacement: string, count: number, what: string): string {
  const pattern = typeof search === "string" ? new RegExp(escapeRegExp(search), "g") : search;
  const found = code.match(pattern)?.length ?? 0;
  if (found !== count) throw new Error(`${what}: expected ${count} match(es) of ${pattern}, found ${found}; the library changed, update the patch`);
  return code.replace(pattern, replacement);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
