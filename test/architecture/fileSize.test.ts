import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const SRC = resolve(import.meta.dir, "../../src");
const MAX_LINES = 400;

/** Files allowed past the limit for now (none: LlmEngine.ts was split into src/llm/kv/ and its helpers). */
const IN_FLIGHT = new Set<string>();

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? tsFiles(p) : e.name.endsWith(".ts") ? [p] : [];
  });
}

test(`no file in src/ over ${MAX_LINES} lines`, () => {
  const long = tsFiles(SRC)
    .map((p) => ({ file: relative(SRC, p).replaceAll("\\", "/"), lines: readFileSync(p, "utf8").split("\n").length - 1 }))
    .filter((f) => f.lines > MAX_LINES && !IN_FLIGHT.has(f.file))
    .map((f) => `${f.file}: ${f.lines} lines`);
  expect(long).toEqual([]);
});
