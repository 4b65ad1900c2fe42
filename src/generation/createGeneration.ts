import type { Config } from "../config/config.ts";
import type { LlmEngine } from "../llm/LlmEngine.ts";
import type { Logger } from "../ops/logger.ts";
import type { ModelStatus } from "../core/context.ts";
import { safeUrl } from "./backendsConfig.ts";
import { LocalBackend } from "./LocalBackend.ts";
import { RemotePool } from "./remote/RemotePool.ts";
import type { GenerationBackend } from "./types.ts";
import type { TokenCountStore } from "./remote/tokenCountStore.ts";

const CALIBRATION_TEXT =
  "The old guard of the north gate has watched the king's road for thirty winters. He knows every traveller by the dust " +
  "on their boots, every merchant by the weight of their purse, and every rumour of dragons, smugglers and lost gold " +
  "long before it reaches the tavern. Ask him kindly and he may tell you which bridge is safe after dark.";

/** Health probes of the remote pool's backends (a down backend comes back within this). */
export const PROBE_INTERVAL_MS = 2_000;

/**
 * The configured generation: the in-process engine (`loadLocal`, null when model loading is off) or,
 * with generation = "remote", the pool of `[[backends]]` (no local model is loaded then).
 */
export async function createGeneration(
  config: Config,
  log: Logger,
  loadLocal: (() => Promise<{ llm: LlmEngine | null; status: ModelStatus }>) | null,
  countStore?: TokenCountStore,
): Promise<{ llm: LlmEngine | null; status: ModelStatus; generation: GenerationBackend | null }> {
  if (!loadLocal) return { llm: null, status: { state: "absent", path: null, error: "model loading disabled" }, generation: null };
  if (config.generation !== "remote") {
    const local = await loadLocal();
    return { ...local, generation: local.llm ? new LocalBackend(local.llm) : null };
  }
  const pool = new RemotePool({
    backends: config.backends,
    defaultTimeoutMs: config.generationTimeoutMs,
    fallbackContextSize: config.contextSize,
    probeIntervalMs: PROBE_INTERVAL_MS,
    log,
    countStore,
  });
  const up = await pool.probeAll();
  // Learn the tokens-per-byte ratio prompt budgets use before the first turn (else they assume a token per byte).
  await pool.reserveTokens([{ role: "user", content: CALIBRATION_TEXT }]).catch(() => {});
  pool.backends.forEach((b, i) => {
    // never the apiKey; the URL without any credentials in it
    const fields = { backend: b.name, url: safeUrl(b.config.url), kind: b.config.kind, model: b.config.model, contextSize: b.contextSize, parameters: b.parameters };
    if (up[i]) log.info("generation backend up", fields);
    else log.warn("generation backend not answering: its conversations go to the others until it is back", { ...fields, err: b.lastError });
  });
  return { llm: null, status: { state: "remote", path: null, error: null }, generation: pool };
}
