import { describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { parseCircular, parseDependencyTree, type DependencyTree } from "dpdm";
import { tempDir } from "../support/testApp.ts";

const ROOT = resolve(import.meta.dir, "../..");

/** The import graph of a folder, type-only imports included (transform: false keeps them). */
async function graph(dir: string): Promise<DependencyTree> {
  return parseDependencyTree(["**/*.ts"], { cwd: dir, context: dir, transform: false, extensions: [".ts", ".tsx", ".js", ".json"] });
}

async function cycles(dir: string): Promise<string[]> {
  return parseCircular(await graph(dir)).map((c) => c.join(" -> "));
}

describe("the import graph of src/", () => {
  test("has no cycle, type-only imports included", async () => {
    expect(await cycles(join(ROOT, "src"))).toEqual([]);
  });

  test("only the CLI commands that start the server import the App", async () => {
    const tree = await graph(join(ROOT, "src"));
    const importers = Object.entries(tree)
      .filter(([, deps]) => deps?.some((d) => d.id?.endsWith("app/App.ts")))
      .map(([file]) => relative(join(ROOT, "src"), resolve(join(ROOT, "src"), file)))
      .sort();
    expect(importers).toEqual(["cli/commands/loreTests.ts", "cli/commands/quickstart.ts", "cli/commands/serve.ts"]);
  });

  // The check itself must be able to fail: a two-file cycle through a type import.
  test("the checker finds a cycle made only of type imports", async () => {
    const dir = tempDir("lorehold-cycle-");
    try {
      mkdirSync(join(dir, "a"));
      writeFileSync(join(dir, "a", "one.ts"), `import type { Two } from "../two.ts";\nexport interface One { two: Two }\n`);
      writeFileSync(join(dir, "two.ts"), `import type { One } from "./a/one.ts";\nexport interface Two { one?: One }\n`);
      const found = await cycles(dir);
      expect(found.length).toBe(1);
      expect(found[0]).toContain("two.ts");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
