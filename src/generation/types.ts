import type { ChatMessage, GenerateRequest, GenerateResult } from "../llm/types.ts";

export type { ChatMessage, GenerateRequest, GenerateResult };

/** Where generation runs: the in-process llama.cpp engine or a pool of OpenAI-compatible servers. */
export type GenerationMode = "local" | "remote";

/** What one remote server is (the extras each supports differ). */
export type BackendKind = "llama-server" | "vllm" | "ollama" | "openai";

/** One `[[backends]]` entry. */
export interface BackendConfig {
  url: string;
  model: string;
  /** sent as a Bearer token; never logged nor shown by /readyz, /metrics or the CLI */
  apiKey: string | null;
  /** requests this backend may run at once (its slots / batch size) */
  maxConcurrent: number;
  /** share of the conversations relative to the other backends (virtual nodes on the ring) */
  weight: number;
  /** longest time one attempt on this backend may take */
  timeoutMs: number;
  kind: BackendKind;
}

/** Circuit state of a remote backend, as /readyz and /metrics show it. */
export type BackendState = "up" | "down" | "half-open" | "unknown";

export interface BackendStatus {
  name: string;
  url: string;
  kind: BackendKind | "local";
  model: string;
  state: BackendState;
  inFlight: number;
  maxConcurrent: number;
  requests: number;
  errors: number;
  /** prompt tokens the backend reported as served from its cache */
  cachedPromptTokens: number;
  /** typed turns' tails whose action choice was sampled, not gated: the backend read no token probabilities (remote only) */
  tailGatesUnread?: number;
  /** median / 99th percentile of the recent attempts' duration (ms), null before the first */
  latencyP50Ms: number | null;
  latencyP99Ms: number | null;
  contextSize: number | null;
  lastError: string | null;
}

/**
 * What the interact path, the memory summary and the scanner's refinement need from generation.
 * `generate` keeps LlmEngine's contract (GenerateRequest / GenerateResult): replies cleaned the same
 * way, `finishReason` "abort"/"timeout" as results, thrown errors for a failed generation.
 */
export interface GenerationBackend {
  readonly mode: GenerationMode;
  /**
   * Tokens a generation's prompt and reply may take together (per conversation): the local engine's
   * context; for a remote pool the smallest any server reported (a slot's, not the server's -c).
   */
  readonly contextSize: number;
  /**
   * Parameters of the model that generates (the prompt layer reads it: src/npc/secrets/smallestChatModels.ts): the
   * local GGUF's; for a remote pool the smallest any llama-server reported; null when none reported one.
   */
  readonly modelParameters: number | null;
  /** Tokens of plain text: exact locally, an estimate (or a cached exact count) for a remote pool. */
  countTokens(text: string): number;
  /**
   * Tokens of a rendered chat prompt (for fitting a prompt to the context; never below the truth locally).
   * `speaker`: who answers (GenerateRequest.speaker), for a layout that names it.
   */
  countChatTokens(messages: ChatMessage[], speaker?: string): number;
  /**
   * Makes countTokens exact for these texts where it is not already (a remote pool asks a server's
   * /tokenize, cached and kept): what a prompt is fitted with must count the same on every turn.
   * `background`: work made ahead, after every request's. True when every text's count is exact.
   */
  prepareCounts(texts: string[], opts?: { background?: boolean }): Promise<boolean>;
  /** An upper bound of the prompt's tokens, for a credit reservation made before the call. */
  reserveTokens(messages: ChatMessage[]): Promise<number>;
  generate(req: GenerateRequest): Promise<GenerateResult>;
  /** Per backend, for /readyz, /metrics and the CLI. */
  status(): BackendStatus[];
  dispose(): Promise<void>;
}

/** What the memory summary and the scanner's refinement use: the in-process LlmEngine or any GenerationBackend fits. */
export type TextModel = Pick<GenerationBackend, "contextSize" | "countChatTokens" | "generate">;
