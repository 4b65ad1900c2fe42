import { jsonSchemaGbnf } from "../../llm/jsonSchemaGrammar.ts";
import { schemaProblem } from "../structured.ts";
import type { ChatMessage, GenerateRequest } from "../types.ts";
import type { TailRequest, TailResult } from "../../llm/types.ts";
import type { AttemptRequest, RemoteBackend, RemoteResult } from "./RemoteBackend.ts";
import { gatedGrammar, type RemoteGateRead } from "./remoteGate.ts";

/**
 * Whether this backend samples a typed turn's tail under its schema: llama-server (the local engine's grammar,
 * or `json_schema`, on /completion) and vLLM (guided decoding) do; an "openai" or "ollama" backend is asked without one and its
 * answer validated here (tailByAsking).
 */
export function constrainsTail(backend: RemoteBackend): boolean {
  const kind = backend.config.kind;
  return (kind === "llama-server" || kind === "vllm") && !backend.schemaUnsupported;
}

export interface TailContext {
  /** the time left of the turn's budget */
  timeoutMs: number;
  countTokens: (text: string) => number;
  log?: { warn(msg: string, fields?: Record<string, unknown>): void };
}

/**
 * Whether the tail goes to llama-server as the GBNF the local engine samples it under (jsonSchemaGbnf, compact:
 * no whitespace outside strings) rather than as `json_schema`, whose grammar lets the model spend tokens on
 * spaces and newlines. `spacedJson` keeps the schema (the bench's "before").
 */
function sendsGrammar(backend: RemoteBackend, tail: TailRequest): boolean {
  return backend.config.kind === "llama-server" && !backend.grammarUnsupported && !tail.spacedJson;
}

const MAX_GRAMMARS = 256;
const grammars = new Map<string, string>();

/** The tail's GBNF, the most recently used kept (tails vary with each turn's offered actions). */
function tailGrammar(schema: object): string {
  const key = JSON.stringify(schema);
  let gbnf = grammars.get(key);
  if (gbnf !== undefined) grammars.delete(key);
  else {
    gbnf = jsonSchemaGbnf(schema, { compact: true });
    if (grammars.size >= MAX_GRAMMARS) grammars.delete(grammars.keys().next().value!);
  }
  grammars.set(key, gbnf);
  return gbnf;
}

/**
 * A typed turn's tail on the backend that wrote the words, after they were streamed (the first word never
 * waits for it). A backend with constrained decoding continues the same response — the rendered prompt, the
 * words and the delimiter — under the tail's schema; its prompt cache holds the prompt and the words, so only
 * the delimiter and the few re-tokenized word tokens are read again. A backend without falls back to asking
 * for the JSON. A failed request gives a tail with an error: the turn settles on the neutral default.
 */
export async function remoteTail(backend: RemoteBackend, req: GenerateRequest, words: RemoteResult, ctx: TailContext): Promise<TailResult> {
  const tail = req.tail!;
  const startedAt = performance.now();
  const base: AttemptRequest = {
    key: req.conversationKey,
    messages: req.messages,
    maxTokens: tail.maxTokens,
    temperature: req.temperature ?? 0.7,
    seed: req.seed,
    jsonSchema: tail.jsonSchema,
    signal: req.signal,
    timeoutMs: Math.max(1, Math.min(backend.config.timeoutMs, ctx.timeoutMs)),
    promptEstimate: words.promptTokens,
  };
  try {
    if (!constrainsTail(backend)) {
      if (tail.gate) ungated(backend, ctx);
      return await tailByAsking(backend, base, words.text, tail, startedAt);
    }
    const continuation = words.text + tail.delimiter;
    let r: RemoteResult | null = null;
    let gate: RemoteGateRead | undefined;
    if (sendsGrammar(backend, tail)) {
      // The action gate is read on the rendered prompt, in the same attempt, before the tail is sampled.
      const chooseGrammar = tail.gate && !backend.gateUnsupported ? gatedGrammar(backend, tail.gate, tailGrammar, { read: (g) => (gate = g), unread: () => (backend.gateUnsupported = true) }) : undefined;
      try {
        r = await backend.chat({ ...base, jsonSchema: null, grammar: tailGrammar(tail.jsonSchema), continuation, ...(chooseGrammar ? { chooseGrammar } : {}) });
      } catch (e) {
        // a server that refuses the grammar (RemoteBackend marks it) gets the schema, now and from then on
        if (!backend.grammarUnsupported) throw e;
        // and its choice sampled: a reading taken before the refusal was not applied
        gate = undefined;
      }
    }
    r ??= await backend.chat({ ...base, continuation });
    if (tail.gate && !gate) ungated(backend, ctx);
    return {
      text: r.text.trim(),
      tokens: ctx.countTokens(tail.delimiter) + r.completionTokens,
      evaluatedTokens: r.evaluatedPromptTokens + (gate?.evaluatedTokens ?? 0),
      ms: performance.now() - startedAt,
      finishReason: r.finishReason,
      ...(gate ? { gate: gate.result } : {}),
    };
  } catch (e) {
    return { text: "", tokens: 0, evaluatedTokens: 0, ms: performance.now() - startedAt, finishReason: "stop", error: e instanceof Error ? e.message : String(e) };
  }
}

/**
 * A gated tail whose choice was sampled: the backend reads no probabilities (vLLM, OpenAI-compatible, a
 * llama-server without them or without grammars). The reply keeps its shape; the count is on /metrics
 * (lorehold_backend_tail_gates_unread) and the first one is logged.
 */
function ungated(backend: RemoteBackend, ctx: TailContext): void {
  if (backend.tailGatesUnread++ === 0) {
    ctx.log?.warn("generation backend reads no token probabilities: its typed turns sample the action choice instead of gating it", {
      backend: backend.name,
      kind: backend.config.kind,
    });
  }
}

/**
 * The tail from a backend without constrained decoding: the conversation with the words as the model's reply
 * and a request for the behaviour JSON; the answer parsed and validated (Ajv), one repair turn if it is not
 * valid, and the last answer returned as it is — the turn's settlement validates it again and takes the
 * neutral default (with a warning) when it still is not, so no invalid action ever gets through.
 */
async function tailByAsking(backend: RemoteBackend, base: AttemptRequest, words: string, tail: TailRequest, startedAt: number): Promise<TailResult> {
  const ask = `Now write only your behaviour for that reply as one JSON object matching this JSON schema, nothing else:\n${JSON.stringify(tail.jsonSchema)}`;
  let messages: ChatMessage[] = [...base.messages, { role: "assistant", content: words }, { role: "user", content: ask }];
  let tokens = 0;
  let evaluated = 0;
  let text = "";
  for (let attempt = 0; attempt < 2; attempt++) {
    const r = await backend.chat({ ...base, messages, jsonSchema: null });
    tokens += r.completionTokens;
    evaluated += r.evaluatedPromptTokens;
    text = jsonObjectIn(r.text);
    if (r.finishReason === "abort" || r.finishReason === "timeout") return { text, tokens, evaluatedTokens: evaluated, ms: performance.now() - startedAt, finishReason: r.finishReason };
    const problem = schemaProblem(text, tail.jsonSchema);
    if (problem === null) break;
    messages = [...messages, { role: "assistant", content: r.text }, { role: "user", content: `That is not valid: ${problem}. Write only the corrected JSON object.` }];
  }
  return { text, tokens, evaluatedTokens: evaluated, ms: performance.now() - startedAt, finishReason: "stop" };
}

/** The outermost {…} of a free-form answer (models wrap JSON in prose or code fences), else the answer trimmed. */
function jsonObjectIn(text: string): string {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  return start >= 0 && end > start ? text.slice(start, end + 1) : text.trim();
}
