import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveModelPath } from "../../src/llm/resolveModel.ts";

let root: string;
const dir = (name: string) => join(root, name);

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "lorehold-resolve-"));
  const layout: Record<string, string[]> = {
    empty: [],
    one: ["npc.gguf", "README.md"],
    two: ["a.gguf", "b.GGUF"],
    split: ["big-00001-of-00002.gguf", "big-00002-of-00002.gguf"],
    nested: ["embeddings/model.onnx", "only.gguf"],
  };
  for (const [folder, files] of Object.entries(layout)) {
    mkdirSync(dir(folder), { recursive: true });
    for (const f of files) {
      mkdirSync(join(dir(folder), f, ".."), { recursive: true });
      writeFileSync(join(dir(folder), f), "x");
    }
  }
  mkdirSync(join(dir("dirnamed"), "fake.gguf"), { recursive: true }); // a directory, not a model
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("resolveModelPath", () => {
  const cases: { name: string; modelsDir: () => string; model?: () => string; expected: () => string | null }[] = [
    { name: "single gguf in dir", modelsDir: () => dir("one"), expected: () => join(dir("one"), "npc.gguf") },
    { name: "empty dir", modelsDir: () => dir("empty"), expected: () => null },
    { name: "missing dir", modelsDir: () => dir("nope"), expected: () => null },
    { name: "two models, none chosen", modelsDir: () => dir("two"), expected: () => null },
    { name: "file name in dir", modelsDir: () => dir("two"), model: () => "b.GGUF", expected: () => join(dir("two"), "b.GGUF") },
    { name: "name without extension", modelsDir: () => dir("two"), model: () => "a", expected: () => join(dir("two"), "a.gguf") },
    { name: "absolute path elsewhere", modelsDir: () => dir("empty"), model: () => join(dir("one"), "npc.gguf"), expected: () => join(dir("one"), "npc.gguf") },
    { name: "unknown name", modelsDir: () => dir("one"), model: () => "other.gguf", expected: () => null },
    { name: "split model counts as one", modelsDir: () => dir("split"), expected: () => join(dir("split"), "big-00001-of-00002.gguf") },
    { name: "subfolders ignored", modelsDir: () => dir("nested"), expected: () => join(dir("nested"), "only.gguf") },
    { name: "directory named .gguf is not a model", modelsDir: () => dir("dirnamed"), expected: () => null },
    { name: "blank model means unset", modelsDir: () => dir("one"), model: () => "  ", expected: () => join(dir("one"), "npc.gguf") },
  ];
  for (const c of cases) {
    test(c.name, () => {
      expect(resolveModelPath(c.modelsDir(), c.model?.())).toBe(c.expected());
    });
  }
});
