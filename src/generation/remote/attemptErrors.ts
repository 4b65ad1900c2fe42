/** One failed attempt; `streamed`: tokens had already reached the caller (so it cannot be retried). */
export class AttemptError extends Error {
  constructor(
    message: string,
    readonly streamed: boolean,
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

/**
 * The server refused the prompt as longer than its context (llama-server: HTTP 400
 * `exceed_context_size_error`, "request (N tokens) exceeds the available context size (M tokens)";
 * vLLM and OpenAI: "maximum context length"). Sending the same prompt again, there or elsewhere, fails
 * the same way: it is never retried. `contextSize`: the context the server said it has, when it did.
 */
export class ContextOverflowError extends AttemptError {
  constructor(
    message: string,
    readonly contextSize: number | null,
    status: number | null,
  ) {
    super(message, false, status);
  }
}

const OVERFLOW = /exceed_context_size|exceeds the available context size|larger than the max context size|maximum context length|context_length_exceeded/i;

/** A refusal's body read as a context overflow (with the server's context when it gives one), else null. */
export function contextOverflow(body: string): { contextSize: number | null } | null {
  if (!OVERFLOW.test(body)) return null;
  let n: unknown = null;
  try {
    const parsed = JSON.parse(body) as { error?: { n_ctx?: unknown }; n_ctx?: unknown };
    n = parsed?.error?.n_ctx ?? parsed?.n_ctx ?? null;
  } catch {}
  if (typeof n !== "number") {
    const m = /context size \((\d+) tokens\)|maximum context length is (\d+)/i.exec(body);
    n = m ? Number(m[1] ?? m[2]) : null;
  }
  return { contextSize: typeof n === "number" && Number.isInteger(n) && n > 0 ? n : null };
}
