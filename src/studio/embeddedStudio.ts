import type { StudioBundle } from "./studioTypes.ts";

/**
 * The Studio's built files inside the executable. From source this is
 * `null` and the Studio is bundled from studio/ on first request;
 * `scripts/build.ts` replaces this module with the prebuilt bundle
 * (see scripts/build/studioModule.ts).
 */
export const embeddedStudio: StudioBundle | null = null;
