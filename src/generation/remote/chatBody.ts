import { ROLE_MARKERS } from "../../llm/cleanReply.ts";
import type { AvoidText, RepetitionControl } from "../../llm/types.ts";
import type { BackendConfig, ChatMessage } from "../types.ts";
import { continueChatBody } from "./continueBody.ts";

/** What of an attempt (RemoteBackend's AttemptRequest) the body is made of. */
export interface ChatRequest {
  messages: ChatMessage[];
  maxTokens: number;
  temperature: number;
  seed?: number;
  minTokens?: number;
  jsonSchema: object | null;
  repetition?: RepetitionControl;
  /** texts whose tokens are made less likely (GenerateRequest.avoid) */
  avoid?: AvoidText[];
  /** the model's reply so far, continued rather than answered anew (a typed turn's tail: remoteTail.ts) */
  continuation?: string;
  /** stop strings besides the role markers */
  stop?: string[];
}

/** The /v1/chat/completions body of one attempt, with the extras each kind of server takes. */
export function chatBody(config: BackendConfig, req: ChatRequest, slot: number): Record<string, unknown> {
  const kind = config.kind;
  const body: Record<string, unknown> = {
    model: config.model,
    messages: req.messages,
    max_tokens: Math.max(1, Math.floor(req.maxTokens)),
    temperature: req.temperature,
    stream: true,
    stream_options: { include_usage: true },
  };
  if (req.seed !== undefined) body.seed = req.seed;
  // OpenAI itself takes at most 4 stop strings; the others take our role markers (as the local engine's stop triggers).
  if (!req.jsonSchema && kind !== "openai") body.stop = [...ROLE_MARKERS, ...(req.stop ?? [])];
  if (kind === "llama-server") {
    body.cache_prompt = true;
    if (slot >= 0) body.id_slot = slot;
    if (req.jsonSchema) body.json_schema = req.jsonSchema;
  } else if (req.jsonSchema) {
    body.response_format = { type: "json_schema", json_schema: { name: "output", schema: req.jsonSchema } };
  }
  if (kind === "vllm" && req.minTokens && !req.jsonSchema) body.min_tokens = req.minTokens;
  if (req.repetition && !req.jsonSchema) Object.assign(body, repetitionFields(kind, req.repetition));
  // llama-server tokenizes a string's tokens itself, as the local engine does; the other kinds take token ids of
  // their own tokenizer, which a pool does not have: they sample without it (the guard still checks what comes back).
  if (req.avoid?.length && !req.jsonSchema && kind === "llama-server") body.logit_bias = req.avoid.map((a) => [a.text, a.logit]);
  if (req.continuation !== undefined) continueChatBody(body, req.messages, req.continuation, req.jsonSchema);
  return body;
}

/**
 * The same repetition control the local engine applies, in each server's own fields: llama-server has them all
 * (repeat_penalty, DRY); vLLM the three penalties; OpenAI and Ollama's OpenAI API only frequency and presence.
 */
export function repetitionFields(kind: BackendConfig["kind"], r: RepetitionControl): Record<string, number> {
  const out: Record<string, number> = {};
  if (r.frequencyPenalty !== undefined) out.frequency_penalty = r.frequencyPenalty;
  if (r.presencePenalty !== undefined) out.presence_penalty = r.presencePenalty;
  if (kind === "llama-server") {
    if (r.penalty !== undefined) {
      out.repeat_penalty = r.penalty;
      out.repeat_last_n = r.lastTokens ?? 64;
    }
    if (r.dry && r.dry.strength > 0) {
      out.dry_multiplier = r.dry.strength;
      if (r.dry.base !== undefined) out.dry_base = r.dry.base;
      if (r.dry.allowedLength !== undefined) out.dry_allowed_length = r.dry.allowedLength;
      // -1: the whole context, as node-llama-cpp's null
      out.dry_penalty_last_n = r.dry.lastTokens ?? -1;
    }
  } else if (kind === "vllm" && r.penalty !== undefined) out.repetition_penalty = r.penalty;
  return out;
}
