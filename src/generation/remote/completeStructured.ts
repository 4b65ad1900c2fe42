import { AttemptError } from "./attemptErrors.ts";
import type { ChatMessage } from "../types.ts";
import type { Outcome, Timings } from "./attemptOutcome.ts";
import { LOCAL_SAMPLING } from "./localSampling.ts";

/** What a structured completion takes of an attempt's request (RemoteBackend's AttemptRequest). */
export interface StructuredRequest {
  messages: ChatMessage[];
  maxTokens: number;
  temperature: number;
  seed?: number;
  jsonSchema: object | null;
  grammar?: string;
  chooseGrammar?: GrammarChoice;
  continuation?: string;
}

/** A POST to the attempt's server, with the attempt's cancellation (RemoteBackend.post). */
export type Post = (path: string, body: unknown) => Promise<Response>;

/** What a grammar choice may ask of the server before the completion, on the attempt's slot. */
export interface ServerCalls {
  /** /completion on the attempt's slot, prompt cached, not streamed: the parsed JSON answer */
  complete(body: Record<string, unknown>): Promise<unknown>;
  /** plain text by the server's own tokenizer (no BOS), each token with its bytes where the server gives them */
  tokenize(text: string): Promise<ServerToken[]>;
}

/** A token of the server's: its id, and its text's bytes (null from a server without `with_pieces`). */
export interface ServerToken {
  id: number;
  piece: Uint8Array | null;
}

/**
 * Decides the grammar of a structured completion once the prompt is rendered (a typed turn's action gate,
 * remoteGate.ts): `prompt` is the whole text the completion continues. Undefined keeps the request's grammar.
 */
export type GrammarChoice = (prompt: string, server: ServerCalls) => Promise<string | undefined>;

/** The calls a grammar choice may make, on the attempt's slot. */
export function serverCalls(post: Post, slot: number): ServerCalls {
  const onSlot = (body: Record<string, unknown>) => (slot >= 0 ? { ...body, id_slot: slot } : body);
  return {
    complete: async (body) => (await post("/completion", onSlot({ ...body, cache_prompt: true, stream: false }))).json(),
    tokenize: async (text) => {
      const r = (await (await post("/tokenize", { content: text, add_special: false, with_pieces: true })).json()) as { tokens?: unknown[] };
      if (!Array.isArray(r.tokens)) throw new AttemptError("tokenize returned no tokens", false);
      return r.tokens.map(serverToken);
    },
  };
}

/**
 * llama-server structured output: /apply-template, then /completion under the grammar or JSON schema (not
 * streamed). One rendering serves the grammar choice and the completion, so a gated tail costs one more request,
 * not two.
 */
export async function completeStructured(post: Post, req: StructuredRequest, slot: number, out: Outcome): Promise<void> {
  const { prompt } = (await (await post("/apply-template", { messages: req.messages })).json()) as { prompt?: string };
  if (typeof prompt !== "string") throw new AttemptError("apply-template returned no prompt", false);
  const full = prompt + (req.continuation ?? "");
  const server = serverCalls(post, slot);
  const grammar = (req.chooseGrammar ? await req.chooseGrammar(full, server) : undefined) ?? req.grammar;
  const body: Record<string, unknown> = {
    prompt: full,
    n_predict: Math.max(1, Math.floor(req.maxTokens)),
    temperature: req.temperature,
    ...LOCAL_SAMPLING,
    ...(grammar ? { grammar } : { json_schema: req.jsonSchema }),
    cache_prompt: true,
    stream: false,
  };
  if (slot >= 0) body.id_slot = slot;
  if (req.seed !== undefined) body.seed = req.seed;
  const r = (await (await post("/completion", body)).json()) as {
    content?: unknown;
    tokens_predicted?: number;
    tokens_evaluated?: number;
    stop_type?: string;
    timings?: Timings;
  };
  if (typeof r.content !== "string") throw new AttemptError("completion without content", false);
  out.firstAt = performance.now();
  out.raw = r.content;
  out.pieces = r.tokens_predicted ?? 0;
  out.timings = r.timings ?? null;
  out.usage = {
    prompt_tokens: r.tokens_evaluated,
    completion_tokens: r.tokens_predicted,
    prompt_tokens_details: { cached_tokens: r.timings?.cache_n },
  };
  out.finish = r.stop_type === "limit" ? "length" : "stop";
}

const encoder = new TextEncoder();

/** One /tokenize entry: an id, or (`with_pieces`) an id with its piece as text, or as bytes where it is not valid UTF-8. */
function serverToken(t: unknown): ServerToken {
  if (typeof t === "number") return { id: t, piece: null };
  const { id, piece } = (t ?? {}) as { id?: unknown; piece?: unknown };
  if (typeof id !== "number") throw new AttemptError("tokenize returned a token without an id", false);
  if (typeof piece === "string") return { id, piece: encoder.encode(piece) };
  if (Array.isArray(piece) && piece.every((x) => typeof x === "number")) return { id, piece: Uint8Array.from(piece as number[]) };
  return { id, piece: null };
}
