import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { manualPages } from "./markdownSnippets.ts";

// Every relative link of the manual points at a file that exists, so moving or renaming a page cannot leave a
// reader at a dead end. Links to other sites and anchors alone are not checked.
const root = resolve(import.meta.dir, "../..");

/** Pages each feature's own documentation adds with the feature; the map links them already. */
const FEATURE_PAGES = new Set(
  ["typed-turns", "replies-in-character", "lore-tests", "events", "scenes", "scanner", "scaling"].map((p) => `docs/${p}.md`),
);

test("every relative link in README.md, CONTRIBUTING.md, BENCHMARKS.md, CHANGELOG.md and docs/ resolves", () => {
  const broken: string[] = [];
  for (const page of [...manualPages(root), join(root, "BENCHMARKS.md"), join(root, "CHANGELOG.md")]) {
    const text = readFileSync(page, "utf8").replace(/```[\s\S]*?```/g, "");
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1].split("#")[0];
      if (!target || /^[a-z]+:/i.test(target)) continue;
      const path = relative(root, resolve(dirname(page), target));
      if (!existsSync(join(root, path)) && !FEATURE_PAGES.has(path)) broken.push(`${relative(root, page)} → ${m[1]}`);
    }
  }
  expect(broken).toEqual([]);
});
