import type { LlmEngine } from "../llm/LlmEngine.ts";
import type { BackendStatus, ChatMessage, GenerateRequest, GenerateResult, GenerationBackend } from "./types.ts";

/** The in-process engine behind the GenerationBackend interface: a thin adapter, LlmEngine unchanged. */
export class LocalBackend implements GenerationBackend {
  readonly mode = "local" as const;
  private requests = 0;
  private errors = 0;

  constructor(readonly engine: LlmEngine) {}

  get modelParameters(): number {
    return this.engine.modelParameters;
  }

  get contextSize(): number {
    return this.engine.contextSize;
  }

  countTokens(text: string): number {
    return this.engine.countTokens(text);
  }

  countChatTokens(messages: ChatMessage[], speaker?: string): number {
    return this.engine.countChatTokens(messages, speaker);
  }

  async reserveTokens(messages: ChatMessage[]): Promise<number> {
    return this.engine.estimateChatTokens(messages);
  }

  /** Local counts are exact already (and cached by the engine). */
  async prepareCounts(_texts: string[]): Promise<boolean> {
    return true;
  }

  async generate(req: GenerateRequest): Promise<GenerateResult> {
    this.requests++;
    try {
      return await this.engine.generate(req);
    } catch (e) {
      this.errors++;
      throw e;
    }
  }

  status(): BackendStatus[] {
    const s = this.engine.stats();
    return [
      {
        name: "local",
        url: "in-process",
        kind: "local",
        model: this.engine.modelName,
        state: "up",
        inFlight: s.activeSequences + s.queueDepth,
        maxConcurrent: s.sequences,
        requests: this.requests,
        errors: this.errors,
        cachedPromptTokens: s.prefixTokensCopied,
        latencyP50Ms: null,
        latencyP99Ms: null,
        contextSize: this.engine.contextSize,
        lastError: null,
      },
    ];
  }

  dispose(): Promise<void> {
    return this.engine.dispose();
  }
}
