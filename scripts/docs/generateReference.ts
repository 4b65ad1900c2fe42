// Writes docs/reference/config.md and docs/reference/cli.md from the config schema and the CLI's commands.
// Run after adding a config key or a command: `bun run docs`.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { REFERENCE_PAGES } from "./reference.ts";

const root = join(import.meta.dir, "../..");
for (const [path, render] of Object.entries(REFERENCE_PAGES)) {
  writeFileSync(join(root, path), render());
  console.log(`wrote ${path}`);
}
