/** Token usage as an OpenAI-compatible server reports it. */
export interface Usage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number };
}

/** llama-server's own timings of a request. */
export interface Timings {
  cache_n?: number;
  prompt_n?: number;
  prompt_ms?: number;
  predicted_ms?: number;
}

/** What an attempt gathered so far (a failed attempt's `streamed` decides whether it may be retried). */
export interface Outcome {
  raw: string;
  pieces: number;
  streamed: boolean;
  firstAt: number | null;
  finish: string | null;
  usage: Usage | null;
  timings: Timings | null;
}
