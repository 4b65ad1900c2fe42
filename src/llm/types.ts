export type ChatRole = "system" | "user" | "assistant";

export interface ChatMessage {
  role: ChatRole;
  content: string;
}

export interface GenerateRequest {
  /** Stable key (project:mind:player) so a returning conversation finds its KV cache. */
  conversationKey: string;
  /** System first, then the turns; the last one is the user's turn. */
  messages: ChatMessage[];
  maxTokens: number;
  /** Default 0.7. */
  temperature?: number;
  /** Client disconnect / shutdown: stops generation (finishReason "abort"). */
  signal?: AbortSignal;
  /** Wall-clock limit including the wait for a free sequence (finishReason "timeout"). */
  timeoutMs?: number;
  /** Streamed text pieces (for SSE), never containing role markers. */
  onToken?: (text: string) => void;
  /** Constrains the output with a JSON-schema grammar; the text is then valid JSON (unless cut by maxTokens/abort). */
  jsonSchema?: object;
  /**
   * End-of-generation tokens are suppressed until this many tokens were generated (default 0).
   * Keeps a model from answering with an empty reply; tests use it on random-weight models.
   * Ignored with `jsonSchema` (the grammar decides where the output ends).
   */
  minTokens?: number;
  /** Sampling seed, for reproducible output (default: random). */
  seed?: number;
  /** Filled in as the generation proceeds: its first-token parts are final when `onToken` first fires. */
  timings?: GenerateTimings;
  /**
   * After the words, continue the same response on the same sequence: append `delimiter` and sample up to
   * `maxTokens` more under `jsonSchema`'s grammar. The words end at the end of turn, the cap, or the delimiter
   * if the model writes it itself; they stream as without a tail, and the tail never streams.
   */
  tail?: TailRequest;
  /**
   * Ends the reply where it is, as if the model had ended its turn (finishReason "stop", the text so far): the
   * sentence cap and the reply guard (src/npc/replies) stop a reply with it. Unlike `signal`, nobody left.
   */
  stopSignal?: AbortSignal;
  /** Repetition control in sampling (src/npc/replies/repetition.ts chooses it for NPC replies); none when absent. */
  repetition?: RepetitionControl;
  /** Texts whose tokens are made less likely (the reply guard steers a resample away from what the last sample did wrong). */
  avoid?: AvoidText[];
  /** Who the reply speaks as (a mind's name): a model without a chat template reads a transcript whose last line opens with it. */
  speaker?: string;
}

export interface TailRequest {
  delimiter: string;
  jsonSchema: object;
  maxTokens: number;
  /** the local grammar allows JSON's optional whitespace (the tail is compact without it; kept to measure the difference) */
  spacedJson?: boolean;
  /** sample every token of the tail one decode at a time, forced ones too (as before batching; kept to measure the difference) */
  stepwise?: boolean;
  /** decide one branch of the tail from the model's own probabilities instead of sampling it (local engine only) */
  gate?: TailGate;
}

/**
 * One choice in the tail made on the model's probabilities: where the grammar reaches `prefix` it may go on with
 * `stay` (e.g. "none") or any of `act` (e.g. action names). The engine reads the probability the model gives each
 * (normalised over these choices, as the grammar would) and takes an `act` choice only when their total is at least
 * `minProbability`; the tail is then sampled under `stay.jsonSchema` or `act.jsonSchema`, each a narrowing of
 * the tail's `jsonSchema` that begins with `prefix`.
 */
export interface TailGate {
  prefix: string;
  stay: { choice: string; jsonSchema: object };
  act: { choices: string[]; jsonSchema: object };
  minProbability: number;
}

/** What the gate read and chose (TailResult.gate). */
export interface TailGateResult {
  /** the probability of the act choices together at the branch, 0–1 */
  actProbability: number;
  took: "stay" | "act";
}

/** The tail of a generation (GenerateRequest.tail): its text (JSON under the schema unless cut short), cost and time. */
export interface TailResult {
  text: string;
  /** tokens the tail added to the response: the delimiter's and the JSON's (sampled or forced) */
  tokens: number;
  /**
   * tokens evaluated besides the JSON's own: the delimiter, any word tokens that re-tokenized differently, the
   * context's last token read again for its logits, and the gate's reading; never the prompt
   */
  evaluatedTokens: number;
  /** every token the tail put through the model: evaluatedTokens and the JSON's tokens fed back */
  modelTokens?: number;
  /** the context's decode calls while the tail ran (the tail's own when no other sequence was generating) */
  decodes?: number;
  /** of the JSON's tokens, those its grammar forced, appended in batches rather than sampled */
  forcedTokens?: number;
  ms: number;
  finishReason: FinishReason;
  /** why there is no text (the grammar could not be made); absent when the tail was sampled */
  error?: string;
  /** the gate's reading and choice, when the request had a gate and it was read */
  gate?: TailGateResult;
}

/** Penalties on repeating tokens: llama.cpp's repeat/frequency/presence penalties and DRY ("don't repeat yourself"). */
export interface RepetitionControl {
  /** multiplies down the logits of the last `lastTokens` tokens (1: off) */
  penalty?: number;
  frequencyPenalty?: number;
  presencePenalty?: number;
  /** tokens the three penalties look back over */
  lastTokens?: number;
  /** DRY: penalises continuing a sequence that already occurred, exponentially in its length */
  dry?: { strength: number; base?: number; allowedLength?: number; lastTokens?: number | null };
}

/**
 * Every token of `text` (as the model tokenizes it) gets `logit` added to its logit while sampling: llama.cpp's logit
 * bias, the same on the local engine and on llama-server. Never applied under a JSON grammar.
 */
export interface AvoidText {
  text: string;
  /** negative: less likely */
  logit: number;
}

export type FinishReason = "stop" | "length" | "abort" | "timeout";

export interface GenerateResult {
  /** Trimmed reply, never containing role markers or prompt text. */
  text: string;
  /** Tokens of the whole prompt as the chat template renders it. */
  promptTokens: number;
  /** Prompt tokens actually evaluated this time (small when the sequence's KV cache was reused). */
  evaluatedPromptTokens: number;
  completionTokens: number;
  finishReason: FinishReason;
  /** From the call to the first generated token, including any wait for a free sequence. */
  timeToFirstTokenMs: number;
  /** Where the time to the first token went (Server-Timing). */
  timings?: GenerateTimings;
  /** Present when the request asked for a tail and the words ended normally (not aborted or timed out). */
  tail?: TailResult;
}

/** The parts of a generation's time to its first token, in ms. */
export interface GenerateTimings {
  /** Rendering the chat template and tokenizing the prompt (and the mind's static prefix). */
  tokenizeMs: number;
  /** Waiting for a free sequence. */
  queueMs: number;
  /** Saving the evicted conversation's KV state when its background save had not happened yet. */
  kvSaveMs: number;
  /** Finding and loading a KV snapshot (conversation or mind prefix). */
  kvRestoreMs: number;
  /** Evaluating the prompt's new tokens (node-llama-cpp's own template pass included) up to the first sample. */
  evalMs: number;
  /** Sampling the first token until its text was handed on. */
  firstSampleMs: number;
  /** Where the reused prompt tokens came from. */
  warmSource: "resident" | "conversation" | "prefix" | "none";
}

/** KV snapshots on disk (kv/WarmStarts.ts). */
export interface KvSnapshotOptions {
  /** Root folder (data/kv); each model fingerprint gets its own folder under it. */
  dir: string;
  /** Disk budget for all snapshots, in bytes; least recently used ones are deleted beyond it. */
  budgetBytes: number;
  /** "auto" (default): restore only when estimated cheaper than evaluating; "always" (tests). */
  restore?: "auto" | "always";
  /** Fewest prompt tokens a restore must save (default 16). */
  minGainTokens?: number;
  /** Tokens a background mind warm-up evaluates before it looks for turns again (default 64). */
  warmChunkTokens?: number;
  /** Taken conversation states waiting to be packed off their sequence at most (default 2; 0: packed while holding it). */
  pendingSaves?: number;
  /** Tests: runs before a conversation's state is packed (a save made slow on purpose). */
  beforePack?: (kind: "conversation" | "prefix", key: string) => Promise<void>;
}

export interface LlmEngineOptions {
  /** Path of the GGUF model file. */
  modelPath: string;
  /** CPU threads for evaluation; set it explicitly (llama.cpp's default of 4+ is ~60× slower on 2 cores). */
  threads: number;
  /** Parallel sequences (concurrent conversations kept in KV cache) in the one context. */
  parallel: number;
  /** Context size per sequence (default: the model's training context, at most 4096). */
  contextSize?: number;
  /** Tokens of a newcomer's prompt evaluated per decode while other sequences are generating (default 128). */
  promptChunkTokens?: number;
  /** Longest wait for the other active sequences before a decode is dispatched anyway (default 25 ms). */
  batchWaitMs?: number;
  /** Flash attention: true, false, or undefined for node-llama-cpp's choice (on where the model supports it). */
  flashAttention?: boolean;
  /** KV cache element type (ggml name); a quantized type needs flash attention on. Default f16. */
  kvCacheType?: "f16" | "q8_0" | "q4_0";
  /** llama.cpp log level (default "warn"). */
  logLevel?: "error" | "warn" | "info" | "debug";
  /** KV snapshots of conversations and mind prefixes (off when absent). */
  kvSnapshots?: KvSnapshotOptions | null;
}

export interface LlmEngineStats {
  /** llama.cpp decode calls since load; concurrent generations share them. */
  decodeCalls: number;
  /** Completion tokens generated since load. */
  tokensGenerated: number;
  /** Sequences currently generating. */
  activeSequences: number;
  /** Requests waiting for a free sequence. */
  queueDepth: number;
  /** Sequences in the context (= parallel). */
  sequences: number;
  /** Generations that started from a copy of another conversation's KV cache (shared prompt prefix). */
  prefixCopies: number;
  /** Prompt tokens those copies saved from being evaluated again. */
  prefixTokensCopied: number;
  /** KV snapshot activity and the store's size (absent when snapshots are off). */
  kv?: KvStats;
}

export interface KvStats {
  lookups: number;
  restores: number;
  prefixRestores: number;
  prefixRestoredTokens: number;
  nearestPrefixRestores: number;
  restoredTokens: number;
  restoredBytes: number;
  restoreMsTotal: number;
  restoreFailures: number;
  skippedCheaper: number;
  saves: number;
  evictionSaves: number;
  prefixSaves: number;
  prefixWarmedTokens: number;
  prefixWarmYields: number;
  saveFailures: number;
  savedBytes: number;
  saveMsTotal: number;
  saveHoldMsTotal: number;
  savesInPlace: number;
  store: { fingerprint: string; files: number; bytes: number; budgetBytes: number; writable: boolean; refused: number; evictedByBudget: number };
}
