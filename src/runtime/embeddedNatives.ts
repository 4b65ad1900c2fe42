import type { NativeBundle } from "./nativeContract.ts";

/**
 * The natives packed into the executable. From source this is `null`: the
 * libraries load straight from node_modules. `scripts/build.ts` replaces this
 * whole module at build time with one that imports every native file
 * `with { type: "file" }` (see scripts/build/embeddedNativesModule.ts).
 */
export const embeddedNatives: NativeBundle | null = null;
