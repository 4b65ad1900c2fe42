import type { ModuleStub } from "./types.ts";

/**
 * transformers.js imports `sharp` (libvips, loaded from a platform package
 * with its own dynamic requires) for image inputs only. Lorehold embeds text
 * only, and libvips cannot be embedded, so `sharp` becomes a function that
 * explains itself if ever called. It must be truthy: transformers.js throws
 * at import time when no image library is present.
 */
export const stubSharp: ModuleStub = {
  name: "sharp",
  specifiers: /^sharp$/,
  contents() {
    return [
      "export default function sharp() {",
      '    throw new Error("Image processing (sharp) is not available in the Lorehold executable.");',
      "}",
      "",
    ].join("\n");
  },
};
