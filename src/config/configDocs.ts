import type { Config } from "./config.ts";

/**
 * What each configuration key means, beside the parsing table in config.ts: the source that
 * `scripts/docs/generateReference.ts` turns into docs/reference/config.md, so the manual cannot
 * drift from the options the server reads (test/docs/reference.test.ts fails when it is stale).
 */
export interface ConfigDoc {
  /** one sentence or two: what it does and when to change it */
  doc: string;
  /** the default as a reader should see it, when the computed default depends on the machine */
  defaultText?: string;
}

export const CONFIG_DOCS: Partial<Record<keyof Config, ConfigDoc>> = {
  port: { doc: "HTTP port." },
  host: { doc: "Bind address; `0.0.0.0` exposes the server beyond this machine (put a TLS proxy in front)." },
  dataDir: { doc: "Where everything is kept: SQLite, LanceDB, uploads, KV snapshots. Back this folder up." },
  modelsDir: { doc: "GGUF chat models and `embeddings/` folders." },
  model: { doc: "The chat model: a path, or a file name in modelsDir.", defaultText: "the only GGUF in modelsDir" },
  embeddingModel: { doc: "`hashing` (built in, no download) or a folder under `modelsDir/embeddings` holding an ONNX sentence embedder." },
  embeddingMaxTokens: {
    doc: "Word pieces of a lore chunk an ONNX embedding model reads, from its start ([CLS] and [SEP] included); full-text search still reads all of it. 256 is all-MiniLM-L6-v2's own limit; 128 indexes ~2× faster again at a measured cost in recall on long chunks; 0 reads as much as the model can (512). Changing it re-embeds the lore in the background. See docs/embedding-speed.md.",
  },
  embeddingLongText: {
    doc: "What becomes of a chunk's word pieces past `embeddingMaxTokens`: `truncate` leaves them to full-text search; `windows` reads them too, in further windows of `embeddingMaxTokens` (up to 4), the vector being the mean of all their tokens (with 128: recall as good as reading it all, at ~0.8× its CPU). Changing it re-embeds the lore. See docs/embedding-speed.md.",
  },
  embeddingThreads: {
    doc: "Worker threads an ONNX embedding model runs in, each with its own single-threaded session of the model (~100 MB each): passes run side by side on the cores and the server's own thread stays free while lore is indexed. Vectors do not depend on it. See docs/embedding-speed.md.",
    defaultText: "one per thread of `threads`",
  },
  embeddingInt8: {
    doc: "`on`: an ONNX embedding model whose weights are int8 (all-MiniLM-L6-v2 `model_int8.onnx`) has its matrix products run in ONNX Runtime's integer kernels, ~2× the chunks per second on CPUs with VNNI or AMX, vectors within cosine ~0.99 of the float graph's and the same recall; `off`: computed in float as exported. Switching does not re-embed: vectors of either way retrieve each other's. See docs/embedding-int8.md.",
  },
  threads: { doc: "llama.cpp threads. Set it to the physical cores you give Lorehold: more threads than cores is very slow.", defaultText: "available cores" },
  parallel: { doc: "Conversations kept in the model's KV cache at once (sequences of one context)." },
  contextSize: { doc: "Tokens per conversation sequence." },
  publicUrl: { doc: "Base of the scanner's signed upload URLs, as clients reach this server.", defaultText: "http://host:port" },
  adminToken: { doc: "Overrides the admin token stored by `init`.", defaultText: "the one `init` stored" },
  maxReplyTokens: { doc: "Hard cap of a reply's tokens (a mind's `responseConfig.maxTokens` may be lower)." },
  generationTimeoutMs: { doc: "Per-request generation timeout, queue wait included." },
  idleTimeoutSeconds: { doc: "A connection silent this long is closed (1–255); an interaction is allowed its whole generation budget instead." },
  bodyTimeoutSeconds: { doc: "A request body must arrive whole within this (1–255), on every route: 408 past it." },
  flashAttention: { doc: "llama.cpp flash attention: `auto` (on where the model supports it), `on`, `off`. See BENCHMARKS.md for the trade-off on CPUs." },
  actionGate: { doc: "`on`: a typed turn acts only when the model gives the offered actions together at least the mind's `behaviour.actionGate` (0.9 when it sets none) against `none` (the local engine, and remote llama-server backends that return token probabilities; docs/typed-turns.md); `off` samples that choice like the rest of the tail." },
  kvSnapshots: { doc: "`on` keeps conversations and minds' static prompts warm on disk (`dataDir/kv`) across restarts and evictions; `off` keeps them in memory only." },
  kvCacheType: { doc: "Element type of llama.cpp's KV cache: `f16`, `q8_0` (half the memory and snapshot size; grounding within the quality bench's noise, slower prompt evaluation on CPUs) or `q4_0` (a quarter; measure your model first). A quantized cache turns flash attention on (`flashAttention = \"off\"` is refused with it). See docs/warm-players.md." },
  kvDiskBudgetMb: { doc: "Disk budget of those snapshots; the least recently used are deleted beyond it." },
  sceneIdleSeconds: { doc: "A scene nobody has spoken in for this long ends: its memories are checkpointed and its lines deleted (the scene-expiry job). See docs/scenes.md." },
  vectorCacheMb: { doc: "Memory for the lore vector caches of all projects, in MB (~0.5 KB a chunk at 384 dims); the least recently searched project is evicted past it and read from LanceDB again at its next search; 0: no budget. See docs/scaling.md." },
  vectorIndexMinChunks: { doc: "Chunks from which a project's lore is searched through an approximate index built in the background (the exact scan answers below it and while it builds); 0: always exact. See docs/scaling.md." },
  memoryAppendWindowMs: { doc: "How long an event's memory vectors wait after the reply to share one LanceDB commit with other writes' (a commit each costs CPU and a fragment the compaction pays for); the memories are in SQLite at once. A crash loses at most the window's vectors, which the memory-vector-repair job writes again from SQLite. 0: a commit per write. See docs/scaling.md." },
  memoryAppendRows: { doc: "Queued memory vectors that are committed at once, without waiting for the window's end." },
  sharedLoreTokens: { doc: "Tokens of lore a mind's static prompt carries for all its players (at most a third of the prompt budget); 0 turns the shared-lore level off." },
  defaultMonthlyCredits: { doc: "Monthly allotment of a new team's default plan, in credits." },
  logLevel: { doc: "`debug`, `info`, `warn`, `error` or `silent`; JSON lines on stderr." },
  generation: { doc: "`local` (llama.cpp in this process) or `remote` (the `[[backends]]` pool of OpenAI-compatible servers)." },
  backends: {
    doc: "The remote generation servers. In `lorehold.toml` a `[[backends]]` table each (fields below); in the environment a comma-separated list of URLs or a JSON array; `LOREHOLD_BACKENDS_API_KEY` is the key of those without their own.",
    defaultText: "none",
  },
  prices: { doc: "Microcredits per unit (1 credit = 1,000,000 microcredits): `promptToken`, `completionToken`, `scanByte`, `embedToken`. File only (`[prices]`)." },
};

/** The fields of one `[[backends]]` table (parsed by src/generation/backendsConfig.ts). */
export const BACKEND_FIELD_DOCS: Array<{ field: string; default: string; doc: string }> = [
  { field: "url", default: "(required)", doc: "http(s) root of the server (Lorehold calls `/v1/chat/completions`, `/health`, …)." },
  { field: "kind", default: "llama-server", doc: "`llama-server`, `vllm`, `ollama` or `openai`: which extras are used (slot pinning and prompt cache with llama-server)." },
  { field: "model", default: "`default` for llama-server, else required", doc: "Model name sent with each request (vLLM, Ollama and OpenAI serve by name)." },
  { field: "apiKey", default: "`LOREHOLD_BACKENDS_API_KEY`, else none", doc: "Bearer token; never logged, never shown by /readyz, /metrics or the CLI." },
  { field: "maxConcurrent", default: "4", doc: "Requests in flight on this backend (its slots); more wait, within the request's timeout, for a free one." },
  { field: "weight", default: "1", doc: "Share of conversations relative to the other backends (virtual nodes on the hash ring)." },
  { field: "timeoutMs", default: "`generationTimeoutMs`", doc: "Longest time one attempt on this backend may take." },
];
