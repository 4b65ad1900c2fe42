import type { Config } from "../config/config.ts";
import type { ServiceContext } from "../core/context.ts";
import type { LlmEngine } from "../llm/LlmEngine.ts";
import type { GenerationBackend } from "../generation/types.ts";
import type { Logger } from "../ops/logger.ts";

/** What scanner services need (the App's context satisfies it); nothing of HTTP. */
export interface ScannerContext extends ServiceContext {
  config: Pick<Config, "dataDir" | "publicUrl" | "prices">;
  /** null: no chat model, extraction stays heuristic */
  llm: LlmEngine | null;
  /** the configured generation (local engine or remote pool); refinement prefers it to `llm` */
  generation?: GenerationBackend | null;
  log: Logger;
}
