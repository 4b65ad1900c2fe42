export { LlmEngine } from "./LlmEngine.ts";
export { resolveModelPath } from "./resolveModel.ts";
export { cleanReply, ROLE_MARKERS } from "./cleanReply.ts";
export type {
  ChatMessage,
  ChatRole,
  FinishReason,
  GenerateRequest,
  GenerateResult,
  LlmEngineOptions,
  LlmEngineStats,
} from "./types.ts";
