import type { LLamaContextualDryRepeatPenalty, LLamaContextualRepeatPenalty } from "node-llama-cpp";
import type { RepetitionControl } from "./types.ts";

/** A request's repetition control as node-llama-cpp's generateResponse options (none set: llama.cpp samples without penalties). */
export function repetitionOptions(r: RepetitionControl | undefined): { repeatPenalty?: LLamaContextualRepeatPenalty; dryRepeatPenalty?: LLamaContextualDryRepeatPenalty } {
  if (!r) return {};
  const out: { repeatPenalty?: LLamaContextualRepeatPenalty; dryRepeatPenalty?: LLamaContextualDryRepeatPenalty } = {};
  if (r.penalty !== undefined || r.frequencyPenalty !== undefined || r.presencePenalty !== undefined) {
    out.repeatPenalty = {
      penalty: r.penalty ?? 1,
      frequencyPenalty: r.frequencyPenalty,
      presencePenalty: r.presencePenalty,
      lastTokens: r.lastTokens ?? 64,
      // A reply's line breaks are its paragraphs, not repetition.
      penalizeNewLine: false,
    };
  }
  if (r.dry && r.dry.strength > 0) {
    out.dryRepeatPenalty = { strength: r.dry.strength, base: r.dry.base, allowedLength: r.dry.allowedLength, lastTokens: r.dry.lastTokens ?? null };
  }
  return out;
}
