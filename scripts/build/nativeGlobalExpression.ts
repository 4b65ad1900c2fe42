import { NATIVE_GLOBAL } from "../../src/runtime/nativeContract.ts";

/**
 * A JS expression, spliced into third-party code, that yields the runtime's
 * NativeGlobal (src/runtime/nativeContract.ts), or fails with a message that
 * names the fix instead of a path error deep inside a library.
 */
export const nativeGlobalExpression =
  `(globalThis.${NATIVE_GLOBAL} ?? (() => { throw new Error(` +
  `"Lorehold: native library paths are not set. src/runtime/native.ts must be the first import of the entry module."` +
  `); })())`;
