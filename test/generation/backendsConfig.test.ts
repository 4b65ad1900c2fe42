import { afterAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../../src/config/config.ts";
import { tempDir } from "../support/testApp.ts";

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const withToml = (toml: string, env: Record<string, string> = {}) => {
  writeFileSync(join(dir, "lorehold.toml"), toml);
  return loadConfig({ cwd: dir, env });
};

describe("generation and [[backends]]", () => {
  test("defaults: local, no backends", () => {
    rmSync(join(dir, "lorehold.toml"), { force: true });
    expect(loadConfig({ cwd: dir, env: {} })).toMatchObject({ generation: "local", backends: [] });
  });
  test("lorehold.toml tables with defaults filled in (timeout = generationTimeoutMs)", () => {
    const c = withToml(
      'generation = "remote"\ngenerationTimeoutMs = 30000\n[[backends]]\nurl = "http://gpu-1:8000/"\nkind = "vllm"\nmodel = "qwen"\napiKey = "k1"\nmaxConcurrent = 64\nweight = 2.5\n[[backends]]\nurl = "http://cpu-1:8080"\n',
    );
    expect(c.generation).toBe("remote");
    expect(c.backends).toEqual([
      { url: "http://gpu-1:8000", model: "qwen", apiKey: "k1", maxConcurrent: 64, weight: 2.5, timeoutMs: 30000, kind: "vllm" },
      { url: "http://cpu-1:8080", model: "default", apiKey: null, maxConcurrent: 4, weight: 1, timeoutMs: 30000, kind: "llama-server" },
    ]);
  });
  test("environment: a URL list or JSON; LOREHOLD_BACKENDS_API_KEY fills entries without a key", () => {
    rmSync(join(dir, "lorehold.toml"), { force: true });
    const list = loadConfig({ cwd: dir, env: { LOREHOLD_GENERATION: "remote", LOREHOLD_BACKENDS: "http://a:8080, http://b:8080", LOREHOLD_BACKENDS_API_KEY: "sk" } });
    expect(list.backends.map((b) => [b.url, b.apiKey, b.kind])).toEqual([
      ["http://a:8080", "sk", "llama-server"],
      ["http://b:8080", "sk", "llama-server"],
    ]);
    const json = loadConfig({ cwd: dir, env: { LOREHOLD_BACKENDS: '[{"url":"http://o:11434","kind":"ollama","model":"llama3.2"}]' } });
    expect(json.backends[0]).toMatchObject({ url: "http://o:11434", kind: "ollama", model: "llama3.2" });
  });
  const bad: Array<[string, string, RegExp]> = [
    ["unknown mode", 'generation = "cluster"', /generation .* must be "local" or "remote"/],
    ["remote without backends", 'generation = "remote"', /needs at least one \[\[backends\]\]/],
    ["not a URL", '[[backends]]\nurl = "gpu-1"', /url must be an http\(s\) URL/],
    ["ftp URL", '[[backends]]\nurl = "ftp://gpu-1"', /url must be an http\(s\) URL/],
    ["unknown kind", '[[backends]]\nurl = "http://a"\nkind = "tgi"', /kind must be one of llama-server, vllm, ollama, openai/],
    ["vllm without model", '[[backends]]\nurl = "http://a"\nkind = "vllm"', /model is required for kind vllm/],
    ["zero maxConcurrent", '[[backends]]\nurl = "http://a"\nmaxConcurrent = 0', /maxConcurrent must be an integer of at least 1/],
    ["negative weight", '[[backends]]\nurl = "http://a"\nweight = -1', /weight must be a positive number/],
    ["typo'd key", '[[backends]]\nurl = "http://a"\napi_key = "x"', /unknown key 'api_key'/],
  ];
  for (const [name, toml, message] of bad) {
    test(`rejected: ${name}`, () => {
      let err: unknown;
      try {
        withToml(toml);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toMatch(message);
      expect((err as Error).message).not.toContain("k1");
    });
  }
});
