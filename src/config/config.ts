import { availableParallelism } from "node:os";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse as parseToml } from "smol-toml";
import type { BackendConfig, GenerationMode } from "../generation/types.ts";
import { finalizeBackends, parseBackends, parseGenerationMode } from "../generation/backendsConfig.ts";
import { DEFAULT_APPEND_ROWS, DEFAULT_APPEND_WINDOW_MS } from "../vectors/MemoryAppends.ts";

/**
 * One typed configuration, resolved once at boot:
 * defaults ← lorehold.toml (working dir) ← LOREHOLD_* environment ← flags.
 * Every path derives from dataDir / modelsDir.
 */
export interface Prices {
  /** microcredits per prompt token */
  promptToken: number;
  /** microcredits per generated token */
  completionToken: number;
  /** microcredits per scanned byte */
  scanByte: number;
  /** microcredits per embedded token */
  embedToken: number;
}

/** KV cache element types offered: f16 (llama.cpp's default) and the quantized types its CPU kernels handle well. */
export const KV_CACHE_TYPES = ["f16", "q8_0", "q4_0"] as const;
export type KvCacheType = (typeof KV_CACHE_TYPES)[number];

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  modelsDir: string;
  /** GGUF path or file name in modelsDir; unset → the only GGUF there, if exactly one */
  model: string | null;
  /** "hashing" or a folder under modelsDir/embeddings */
  embeddingModel: string;
  /** word pieces of a chunk an ONNX embedding model reads (the rest is left to full-text search); 0: as many as the model can */
  embeddingMaxTokens: number;
  /** the pieces of a chunk past embeddingMaxTokens: left to full-text search ("truncate") or read in further windows whose mean is the vector ("windows") */
  embeddingLongText: "truncate" | "windows";
  /** worker threads an ONNX embedding model runs in, one single-threaded session each; 0: one per `threads` */
  embeddingThreads: number;
  /** "on": an ONNX embedding model's int8 weights are multiplied in integers (ORT's int8 GEMM); "off": in float as exported */
  embeddingInt8: "on" | "off";
  threads: number;
  parallel: number;
  /** tokens per sequence of the generation context */
  contextSize: number;
  publicUrl: string;
  adminToken: string | null;
  /** default reply cap when a mind sets none */
  maxReplyTokens: number;
  /** per-request generation timeout */
  generationTimeoutMs: number;
  /** llama.cpp flash attention: auto (on where the model supports it), on, off */
  flashAttention: "auto" | "on" | "off";
  /** KV snapshots of conversations and mind prompts on disk under dataDir/kv: on or off */
  kvSnapshots: "on" | "off";
  /** a typed turn's choice between "none" and an action read from the model's probabilities (local engine) */
  actionGate: "on" | "off";
  /** llama.cpp KV cache element type: f16, or q8_0 / q4_0 (quantized; needs flash attention) */
  kvCacheType: KvCacheType;
  /** disk budget of those snapshots, in MB (least recently used deleted beyond it) */
  kvDiskBudgetMb: number;
  /** memory budget of the in-memory lore vector caches, in MB: least recently searched projects are evicted past it; 0: no budget */
  vectorCacheMb: number;
  /** chunks from which a project's lore is searched through an approximate index built in the background (exact below it); 0: never */
  vectorIndexMinChunks: number;
  /** ms an event's memory vectors wait to share one LanceDB commit with other writes' (src/vectors/MemoryAppends.ts); 0: a commit each */
  memoryAppendWindowMs: number;
  /** queued memory vectors that commit at once, before the window's end */
  memoryAppendRows: number;
  /** tokens of lore a mind's static prompt carries for all its players (docs/models-and-performance.md, "Warm conversations"); 0: off */
  sharedLoreTokens: number;
  /** seconds a connection may stay silent before the HTTP server closes it (interactions get their generation budget) */
  idleTimeoutSeconds: number;
  /** seconds a request body may take to arrive, on every route (interactions included): 408 past it */
  bodyTimeoutSeconds: number;
  /** seconds a scene may go without a turn or change before it ends (src/scenes: memories checkpointed) */
  sceneIdleSeconds: number;
  /** monthly allotment of a new team's default plan, in credits */
  defaultMonthlyCredits: number;
  prices: Prices;
  logLevel: "debug" | "info" | "warn" | "error" | "silent";
  /** where replies are generated: the in-process engine or the `backends` pool (docs/models-and-performance.md, "Remote generation") */
  generation: GenerationMode;
  /** OpenAI-compatible generation servers (`[[backends]]`), used when generation = "remote" */
  backends: BackendConfig[];
}

/**
 * all-MiniLM-L6-v2's own max_seq_length (sentence-transformers cuts its input there; it was trained on ≤ 128): at 256
 * a ~390-piece chunk embeds in 0.56× the CPU of reading it all, and the answer's chunk was recalled within noise of
 * reading it all (hybrid recall@4 83 % against 87 %, sign test p 0.15; 128 lost 18 points, p < 0.01), BENCHMARKS
 * "Big worlds: MiniLM indexing".
 */
export const DEFAULT_EMBEDDING_MAX_TOKENS = 256;

export const DEFAULT_PRICES: Prices = { promptToken: 1, completionToken: 3, scanByte: 1, embedToken: 0 };

type Raw = Record<string, unknown>;

/** Config keys, their env var and how to parse them: the single table docs/reference/config.md is generated from (with configDocs.ts). */
const KEYS: Array<{ key: keyof Config; env: string; kind: "int" | "string" | "nullable" }> = [
  { key: "port", env: "LOREHOLD_PORT", kind: "int" },
  { key: "host", env: "LOREHOLD_HOST", kind: "string" },
  { key: "dataDir", env: "LOREHOLD_DATA_DIR", kind: "string" },
  { key: "modelsDir", env: "LOREHOLD_MODELS_DIR", kind: "string" },
  { key: "model", env: "LOREHOLD_MODEL", kind: "nullable" },
  { key: "embeddingModel", env: "LOREHOLD_EMBEDDING_MODEL", kind: "string" },
  { key: "embeddingMaxTokens", env: "LOREHOLD_EMBEDDING_MAX_TOKENS", kind: "int" },
  { key: "embeddingLongText", env: "LOREHOLD_EMBEDDING_LONG_TEXT", kind: "string" },
  { key: "embeddingThreads", env: "LOREHOLD_EMBEDDING_THREADS", kind: "int" },
  { key: "embeddingInt8", env: "LOREHOLD_EMBEDDING_INT8", kind: "string" },
  { key: "threads", env: "LOREHOLD_THREADS", kind: "int" },
  { key: "parallel", env: "LOREHOLD_PARALLEL", kind: "int" },
  { key: "contextSize", env: "LOREHOLD_CONTEXT_SIZE", kind: "int" },
  { key: "publicUrl", env: "LOREHOLD_PUBLIC_URL", kind: "string" },
  { key: "adminToken", env: "LOREHOLD_ADMIN_TOKEN", kind: "nullable" },
  { key: "maxReplyTokens", env: "LOREHOLD_MAX_REPLY_TOKENS", kind: "int" },
  { key: "generationTimeoutMs", env: "LOREHOLD_GENERATION_TIMEOUT_MS", kind: "int" },
  { key: "idleTimeoutSeconds", env: "LOREHOLD_IDLE_TIMEOUT_SECONDS", kind: "int" },
  { key: "bodyTimeoutSeconds", env: "LOREHOLD_BODY_TIMEOUT_SECONDS", kind: "int" },
  { key: "sceneIdleSeconds", env: "LOREHOLD_SCENE_IDLE_SECONDS", kind: "int" },
  { key: "flashAttention", env: "LOREHOLD_FLASH_ATTENTION", kind: "string" },
  { key: "kvSnapshots", env: "LOREHOLD_KV_SNAPSHOTS", kind: "string" },
  { key: "actionGate", env: "LOREHOLD_ACTION_GATE", kind: "string" },
  { key: "kvCacheType", env: "LOREHOLD_KV_CACHE_TYPE", kind: "string" },
  { key: "kvDiskBudgetMb", env: "LOREHOLD_KV_DISK_BUDGET_MB", kind: "int" },
  { key: "vectorCacheMb", env: "LOREHOLD_VECTOR_CACHE_MB", kind: "int" },
  { key: "vectorIndexMinChunks", env: "LOREHOLD_VECTOR_INDEX_MIN_CHUNKS", kind: "int" },
  { key: "memoryAppendWindowMs", env: "LOREHOLD_MEMORY_APPEND_WINDOW_MS", kind: "int" },
  { key: "memoryAppendRows", env: "LOREHOLD_MEMORY_APPEND_ROWS", kind: "int" },
  { key: "sharedLoreTokens", env: "LOREHOLD_SHARED_LORE_TOKENS", kind: "int" },
  { key: "defaultMonthlyCredits", env: "LOREHOLD_DEFAULT_MONTHLY_CREDITS", kind: "int" },
  { key: "logLevel", env: "LOREHOLD_LOG_LEVEL", kind: "string" },
];
export const CONFIG_KEYS = KEYS;

export function defaultConfig(): Config {
  return {
    port: 8080,
    host: "127.0.0.1",
    dataDir: "./data",
    modelsDir: "./models",
    model: null,
    embeddingModel: "hashing",
    embeddingMaxTokens: DEFAULT_EMBEDDING_MAX_TOKENS,
    embeddingLongText: "truncate",
    embeddingThreads: 0,
    embeddingInt8: "on",
    threads: availableParallelism(),
    parallel: 4,
    contextSize: 2048,
    publicUrl: "",
    adminToken: null,
    maxReplyTokens: 200,
    generationTimeoutMs: 60_000,
    idleTimeoutSeconds: 10,
    bodyTimeoutSeconds: 10,
    sceneIdleSeconds: 900,
    flashAttention: "auto",
    kvSnapshots: "on",
    actionGate: "on",
    kvCacheType: "f16",
    kvDiskBudgetMb: 4096,
    vectorCacheMb: 2048,
    vectorIndexMinChunks: 20_000,
    memoryAppendWindowMs: DEFAULT_APPEND_WINDOW_MS,
    memoryAppendRows: DEFAULT_APPEND_ROWS,
    sharedLoreTokens: 1024,
    defaultMonthlyCredits: 10_000,
    prices: { ...DEFAULT_PRICES },
    logLevel: "info",
    generation: "local",
    backends: [],
  };
}

export class ConfigError extends Error {}

function coerce(kind: "int" | "string" | "nullable", name: string, value: unknown): unknown {
  if (kind === "int") {
    const n = typeof value === "number" ? value : Number(String(value).trim());
    if (!Number.isInteger(n) || n < 0) throw new ConfigError(`${name} must be a non-negative integer (got ${JSON.stringify(value)})`);
    return n;
  }
  if (kind === "nullable") return value === "" || value == null ? null : String(value);
  return String(value);
}

function applyLayer(cfg: Config, layer: Raw, source: string, byEnv: boolean): void {
  for (const k of KEYS) {
    const name = byEnv ? k.env : k.key;
    if (layer[name] === undefined) continue;
    (cfg as unknown as Raw)[k.key] = coerce(k.kind, `${name} (${source})`, layer[name]);
  }
  // generation / backends: their own parsers (src/generation/backendsConfig.ts)
  const genName = byEnv ? "LOREHOLD_GENERATION" : "generation";
  if (layer[genName] !== undefined) cfg.generation = parseGenerationMode(layer[genName], source, (m) => new ConfigError(m));
  const backendsName = byEnv ? "LOREHOLD_BACKENDS" : "backends";
  if (layer[backendsName] !== undefined) cfg.backends = parseBackends(layer[backendsName], source, (m) => new ConfigError(m));
  const prices = byEnv ? undefined : (layer.prices as Raw | undefined);
  if (prices && typeof prices === "object") {
    for (const p of Object.keys(DEFAULT_PRICES) as (keyof Prices)[]) {
      if (prices[p] !== undefined) cfg.prices[p] = coerce("int", `prices.${p} (${source})`, prices[p]) as number;
    }
  }
}

export interface LoadOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  flags?: Partial<Config>;
  /** explicit config file; default `lorehold.toml` in cwd when present */
  file?: string;
}

export function loadConfig(opts: LoadOptions = {}): Config {
  const cwd = opts.cwd ?? process.cwd();
  const env = opts.env ?? process.env;
  const cfg = defaultConfig();
  const file = opts.file ?? join(cwd, "lorehold.toml");
  if (existsSync(file)) {
    let parsed: Raw;
    try {
      parsed = parseToml(readFileSync(file, "utf8")) as Raw;
    } catch (e) {
      throw new ConfigError(`cannot parse ${file}: ${(e as Error).message}`);
    }
    applyLayer(cfg, parsed, file, false);
  }
  applyLayer(cfg, env as Raw, "environment", true);
  const flags: Raw = {};
  for (const [k, v] of Object.entries(opts.flags ?? {})) if (v !== undefined) flags[k] = v;
  applyLayer(cfg, flags, "flags", false);
  finalizeBackends(cfg, env.LOREHOLD_BACKENDS_API_KEY, (m) => new ConfigError(m));
  return finalize(cfg, cwd);
}

function finalize(cfg: Config, cwd: string): Config {
  cfg.dataDir = resolve(cwd, cfg.dataDir);
  cfg.modelsDir = resolve(cwd, cfg.modelsDir);
  if (cfg.threads < 1) cfg.threads = availableParallelism();
  if (cfg.parallel < 1) throw new ConfigError("parallel must be at least 1");
  if (cfg.port > 65535) throw new ConfigError("port must be at most 65535");
  if (cfg.idleTimeoutSeconds < 1 || cfg.idleTimeoutSeconds > 255) throw new ConfigError("idleTimeoutSeconds must be from 1 to 255");
  if (cfg.bodyTimeoutSeconds < 1 || cfg.bodyTimeoutSeconds > 255) throw new ConfigError("bodyTimeoutSeconds must be from 1 to 255");
  if (cfg.embeddingMaxTokens > 0 && cfg.embeddingMaxTokens < 8) throw new ConfigError("embeddingMaxTokens must be 0 (as much as the model reads) or at least 8");
  if (cfg.embeddingThreads < 0) throw new ConfigError("embeddingThreads must be 0 (one per thread of threads) or more");
  if (!["truncate", "windows"].includes(cfg.embeddingLongText)) throw new ConfigError("embeddingLongText must be truncate or windows");
  if (!["on", "off"].includes(cfg.embeddingInt8)) throw new ConfigError("embeddingInt8 must be on or off");
  if (cfg.sceneIdleSeconds < 10) throw new ConfigError("sceneIdleSeconds must be at least 10");
  if (!["auto", "on", "off"].includes(cfg.flashAttention)) throw new ConfigError("flashAttention must be one of auto, on, off");
  if (!["on", "off"].includes(cfg.kvSnapshots)) throw new ConfigError("kvSnapshots must be on or off");
  if (!["on", "off"].includes(cfg.actionGate)) throw new ConfigError("actionGate must be on or off");
  if (!(KV_CACHE_TYPES as readonly string[]).includes(cfg.kvCacheType)) throw new ConfigError(`kvCacheType must be one of ${KV_CACHE_TYPES.join(", ")}`);
  // llama.cpp stores a quantized V cache only with flash attention; "auto" may pick off on some models, so it is forced on.
  if (cfg.kvCacheType !== "f16" && cfg.flashAttention === "off") throw new ConfigError(`kvCacheType ${cfg.kvCacheType} needs flashAttention auto or on`);
  if (!["debug", "info", "warn", "error", "silent"].includes(cfg.logLevel)) {
    throw new ConfigError(`logLevel must be one of debug, info, warn, error, silent`);
  }
  if (!cfg.publicUrl) cfg.publicUrl = `http://${cfg.host.includes(":") ? `[${cfg.host}]` : cfg.host}:${cfg.port}`;
  cfg.publicUrl = cfg.publicUrl.replace(/\/+$/, "");
  return cfg;
}

/** Paths under the data dir. */
export function dataPaths(cfg: Pick<Config, "dataDir">) {
  return {
    db: join(cfg.dataDir, "lorehold.db"),
    lance: join(cfg.dataDir, "lance"),
    uploads: join(cfg.dataDir, "uploads"),
    kv: join(cfg.dataDir, "kv"),
  };
}
