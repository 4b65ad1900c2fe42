import { expect, test } from "bun:test";
import { writeFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { loadConfig, ConfigError } from "../src/config/config.ts";
import { tempDir } from "./support/testApp.ts";

test("defaults ← lorehold.toml ← environment ← flags", () => {
  const dir = tempDir();
  try {
    const base = loadConfig({ cwd: dir, env: {} });
    expect(base).toMatchObject({ port: 8080, host: "127.0.0.1", dataDir: join(dir, "data"), modelsDir: join(dir, "models"), model: null, embeddingModel: "hashing", parallel: 4, publicUrl: "http://127.0.0.1:8080" });
    writeFileSync(join(dir, "lorehold.toml"), 'port = 9000\nhost = "0.0.0.0"\nparallel = 2\n[prices]\ncompletionToken = 7\n');
    const file = loadConfig({ cwd: dir, env: {} });
    expect(file).toMatchObject({ port: 9000, host: "0.0.0.0", parallel: 2, publicUrl: "http://0.0.0.0:9000" });
    expect(file.prices.completionToken).toBe(7);
    const env = loadConfig({ cwd: dir, env: { LOREHOLD_PORT: "9100", LOREHOLD_DATA_DIR: "/srv/lore" } });
    expect(env).toMatchObject({ port: 9100, dataDir: "/srv/lore" });
    const flags = loadConfig({ cwd: dir, env: { LOREHOLD_PORT: "9100" }, flags: { port: 9200 } });
    expect(flags.port).toBe(9200);
    expect(() => loadConfig({ cwd: dir, env: { LOREHOLD_PORT: "eighty" } })).toThrow(ConfigError);
    writeFileSync(join(dir, "lorehold.toml"), "port = [");
    expect(() => loadConfig({ cwd: dir, env: {} })).toThrow(/cannot parse/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("kvCacheType: f16 by default, q8_0 and q4_0 accepted, anything else or a quantized cache without flash attention refused", () => {
  const dir = tempDir();
  try {
    expect(loadConfig({ cwd: dir, env: {} }).kvCacheType).toBe("f16");
    expect(loadConfig({ cwd: dir, env: { LOREHOLD_KV_CACHE_TYPE: "q8_0" } }).kvCacheType).toBe("q8_0");
    expect(loadConfig({ cwd: dir, env: { LOREHOLD_KV_CACHE_TYPE: "q4_0", LOREHOLD_FLASH_ATTENTION: "on" } }).kvCacheType).toBe("q4_0");
    expect(() => loadConfig({ cwd: dir, env: { LOREHOLD_KV_CACHE_TYPE: "q5_1" } })).toThrow(/kvCacheType must be one of f16, q8_0, q4_0/);
    expect(() => loadConfig({ cwd: dir, env: { LOREHOLD_KV_CACHE_TYPE: "q8_0", LOREHOLD_FLASH_ATTENTION: "off" } })).toThrow(/needs flashAttention/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("embeddingMaxTokens: 256 by default, 0 and 8 up accepted (the file, the environment), 1–7 and negatives refused", () => {
  const dir = tempDir();
  try {
    expect(loadConfig({ cwd: dir, env: {} }).embeddingMaxTokens).toBe(256);
    expect(loadConfig({ cwd: dir, env: { LOREHOLD_EMBEDDING_MAX_TOKENS: "128" } }).embeddingMaxTokens).toBe(128);
    expect(loadConfig({ cwd: dir, env: { LOREHOLD_EMBEDDING_MAX_TOKENS: "0" } }).embeddingMaxTokens).toBe(0);
    expect(() => loadConfig({ cwd: dir, env: { LOREHOLD_EMBEDDING_MAX_TOKENS: "4" } })).toThrow(/embeddingMaxTokens must be 0/);
    expect(() => loadConfig({ cwd: dir, env: { LOREHOLD_EMBEDDING_MAX_TOKENS: "-1" } })).toThrow(ConfigError);
    writeFileSync(join(dir, "lorehold.toml"), "embeddingMaxTokens = 512\n");
    expect(loadConfig({ cwd: dir, env: {} }).embeddingMaxTokens).toBe(512);
    expect(loadConfig({ cwd: dir, env: {} }).embeddingLongText).toBe("truncate");
    expect(loadConfig({ cwd: dir, env: { LOREHOLD_EMBEDDING_LONG_TEXT: "windows" } }).embeddingLongText).toBe("windows");
    expect(() => loadConfig({ cwd: dir, env: { LOREHOLD_EMBEDDING_LONG_TEXT: "mean" } })).toThrow(/embeddingLongText must be truncate or windows/);
    expect(loadConfig({ cwd: dir, env: {} }).embeddingInt8).toBe("on");
    expect(loadConfig({ cwd: dir, env: { LOREHOLD_EMBEDDING_INT8: "off" } }).embeddingInt8).toBe("off");
    expect(() => loadConfig({ cwd: dir, env: { LOREHOLD_EMBEDDING_INT8: "yes" } })).toThrow(/embeddingInt8 must be on or off/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("actionGate: on by default, off accepted, anything else refused", () => {
  const dir = tempDir();
  try {
    expect(loadConfig({ cwd: dir, env: {} }).actionGate).toBe("on");
    expect(loadConfig({ cwd: dir, env: { LOREHOLD_ACTION_GATE: "off" } }).actionGate).toBe("off");
    expect(() => loadConfig({ cwd: dir, env: { LOREHOLD_ACTION_GATE: "0.9" } })).toThrow(/actionGate must be on or off/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
