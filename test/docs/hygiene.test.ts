import { expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";

// The front door stays short, and the text a reader meets (docs, comments, tests) gives reasons, not the names of
// tickets or work sessions that mean nothing outside the team that wrote them.
const root = resolve(import.meta.dir, "../..");
const TICKET_WORDS = new RegExp(["issue [0-9]+", "this " + "session", "session [0-9]"].join("|"), "i");

function files(dir: string, exts: string[]): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...files(path, exts));
    else if (exts.some((e) => name.endsWith(e))) out.push(path);
  }
  return out;
}

test("README.md is at most 250 lines", () => {
  expect(readFileSync(join(root, "README.md"), "utf8").split("\n").length).toBeLessThanOrEqual(250);
});

test("no ticket or session references in README.md, BENCHMARKS.md, docs/, src/ or test/", () => {
  const pages = [join(root, "README.md"), join(root, "BENCHMARKS.md"), ...files(join(root, "docs"), [".md"])];
  const code = [...files(join(root, "src"), [".ts", ".tsx"]), ...files(join(root, "test"), [".ts", ".tsx"])];
  const hits: string[] = [];
  for (const path of [...pages, ...code]) {
    readFileSync(path, "utf8")
      .split("\n")
      .forEach((line, i) => {
        if (TICKET_WORDS.test(line)) hits.push(`${relative(root, path)}:${i + 1}: ${line.trim().slice(0, 120)}`);
      });
  }
  expect(hits).toEqual([]);
});
