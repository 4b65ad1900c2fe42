import path from "node:path";
import { buildStudio } from "../../src/studio/studioBundle.ts";

/**
 * The Studio bundled ahead of time, as the source of the module that replaces
 * src/studio/embeddedStudio.ts in the executable: the page and its assets
 * travel inside the binary (no bundler, no studio/ folder at run time).
 */
export async function studioModule(root: string, log: (line: string) => void): Promise<string> {
  const bundle = await buildStudio(path.join(root, "studio/main.tsx"));
  const gz = bundle.files.reduce((n, f) => n + Bun.gzipSync(new TextEncoder().encode(f.text)).length, 0);
  log(`studio: ${bundle.files.map((f) => f.name).join(", ")} (${(gz / 1024).toFixed(1)} KB gzipped)`);
  return `export const embeddedStudio = ${JSON.stringify(bundle)};\n`;
}
