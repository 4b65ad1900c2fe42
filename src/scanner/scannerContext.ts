import type { Config } from "../config/config.ts";
import type { ServiceContext } from "../core/context.ts";
import type { LlmEngine } from "../llm/LlmEngine.ts";
import type { Logger } from "../ops/logger.ts";

/** What scanner services need (the App's context satisfies it); nothing of HTTP. */
export interface ScannerContext extends ServiceContext {
  config: Pick<Config, "dataDir" | "publicUrl" | "prices">;
  /** null: no chat model, extraction stays heuristic */
  llm: LlmEngine | null;
  log: Logger;
}
