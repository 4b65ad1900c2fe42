import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { writeTinyOnnxModel } from "../support/tinyOnnx.ts";
import { tempDir } from "../support/testApp.ts";
import { cli } from "./cli.ts";

let dir = "";
let models = "";

beforeAll(() => {
  dir = tempDir("lorehold-model-list-");
  models = join(dir, "models");
  mkdirSync(models);
  copyFileSync(ensureTinyModel(), join(models, "tiny.gguf"));
  writeTinyOnnxModel(join(models, "embeddings", "mini-embed"));
  // Not models: a folder without onnx/, a stray file, a download in progress.
  mkdirSync(join(models, "embeddings", "not-a-model"), { recursive: true });
  writeFileSync(join(models, "embeddings", "not-a-model", "README.md"), "notes");
  writeFileSync(join(models, "notes.txt"), "hello");
  writeFileSync(join(models, "big.gguf.partial"), new Uint8Array(1234));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const list = (...flags: string[]) => cli("model", "list", "--models-dir", models, "--json", ...flags);

describe("model list", () => {
  test("a GGUF and an embedding model folder, the only GGUF active, the embedder as configured", async () => {
    const r = await list("--embedding-model", "mini-embed");
    expect(r.code).toBe(0);
    expect(r.json.modelsDir).toBe(models);
    expect(r.json.models).toEqual([
      { name: "tiny.gguf", path: join(models, "tiny.gguf"), kind: "gguf", sizeBytes: statSync(join(models, "tiny.gguf")).size, active: true },
      { name: "mini-embed", path: join(models, "embeddings", "mini-embed"), kind: "embedding", sizeBytes: expect.any(Number), active: true },
    ]);
    expect(r.json.models[1].sizeBytes).toBeGreaterThan(statSync(join(models, "embeddings", "mini-embed", "onnx", "model.onnx")).size);
    expect(r.json.active).toEqual({ chat: join(models, "tiny.gguf"), embedding: "mini-embed" });
    expect(r.json.incomplete).toEqual([{ name: "big.gguf", sizeBytes: 1234 }]);
  });

  test("the built-in hashing embedder leaves the embedding folder inactive", async () => {
    const r = await list();
    expect(r.json.models.map((m: any) => [m.name, m.active])).toEqual([
      ["tiny.gguf", true],
      ["mini-embed", false],
    ]);
    expect(r.json.active.embedding).toBe("hashing");
  });

  test("two GGUFs: none active unless `model` names one", async () => {
    copyFileSync(join(models, "tiny.gguf"), join(models, "other.gguf"));
    try {
      const none = await list();
      expect(none.json.models.filter((m: any) => m.kind === "gguf").map((m: any) => [m.name, m.active])).toEqual([
        ["other.gguf", false],
        ["tiny.gguf", false],
      ]);
      expect(none.json.active.chat).toBeNull();
      const named = await list("--model", "other");
      expect(named.json.models.filter((m: any) => m.active).map((m: any) => m.name)).toEqual(["other.gguf"]);
    } finally {
      rmSync(join(models, "other.gguf"));
    }
  });

  test("a model configured by path outside modelsDir is listed as the active one", async () => {
    const outside = join(dir, "elsewhere.gguf");
    copyFileSync(join(models, "tiny.gguf"), outside);
    const r = await list("--model", outside);
    expect(r.json.models.find((m: any) => m.active && m.kind === "gguf")).toMatchObject({ name: "elsewhere.gguf", path: outside });
    expect(r.json.models.find((m: any) => m.name === "tiny.gguf").active).toBe(false);
  });

  test("an empty or missing modelsDir lists nothing; the text form says what to do", async () => {
    const r = await cli("model", "list", "--models-dir", join(dir, "nope"), "--json");
    expect(r.json).toMatchObject({ models: [], active: { chat: null, embedding: "hashing" }, incomplete: [] });
    const text = await cli("model", "list", "--models-dir", join(dir, "nope"));
    expect(text.code).toBe(0);
    expect(text.out.join("\n")).toContain("model pull");
  });
});
