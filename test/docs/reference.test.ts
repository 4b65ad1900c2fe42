import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REFERENCE_PAGES } from "../../scripts/docs/reference.ts";
import { CONFIG_KEYS, defaultConfig } from "../../src/config/config.ts";
import { CONFIG_DOCS } from "../../src/config/configDocs.ts";
import { COMMANDS } from "../../src/cli/commands/index.ts";

// The generated reference pages: they must match what the generator writes today, so a new config key or
// command without `bun run docs` fails here, and every key must have a description.
const root = join(import.meta.dir, "../..");

describe("generated reference pages", () => {
  for (const [path, render] of Object.entries(REFERENCE_PAGES)) {
    test(`${path} is up to date (regenerate with \`bun run docs\`)`, () => {
      expect(readFileSync(join(root, path), "utf8")).toBe(render());
    });
  }

  test("every configuration key is documented", () => {
    const undocumented = Object.keys(defaultConfig()).filter((k) => !CONFIG_DOCS[k as keyof typeof CONFIG_DOCS]?.doc);
    expect(undocumented).toEqual([]);
  });

  test("the config page lists every key and its environment variable; the CLI page every command's usage", () => {
    const config = REFERENCE_PAGES["docs/reference/config.md"]();
    for (const k of CONFIG_KEYS) {
      expect(config).toContain(`| \`${k.key}\` | \`${k.env}\` |`);
    }
    const cli = REFERENCE_PAGES["docs/reference/cli.md"]();
    for (const c of COMMANDS) expect(cli).toContain(c.usage);
  });
});
