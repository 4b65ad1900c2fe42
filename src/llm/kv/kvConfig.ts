import { dataPaths, type Config } from "../../config/config.ts";
import type { InternalProbe } from "../internals.ts";
import type { KvSnapshotOptions, KvStats, LlmEngineOptions } from "../types.ts";
import type { Llama, LlamaContext } from "node-llama-cpp";
import { modelFingerprint } from "./fingerprint.ts";
import { SnapshotStore } from "./SnapshotStore.ts";

/** The engine's snapshot options from the config (`kvSnapshots`, `kvDiskBudgetMb`, data/kv). */
export function kvSnapshotOptions(config: Pick<Config, "dataDir" | "kvSnapshots" | "kvDiskBudgetMb">): KvSnapshotOptions | null {
  if (config.kvSnapshots !== "on") return null;
  return { dir: dataPaths(config).kv, budgetBytes: config.kvDiskBudgetMb * 1024 * 1024 };
}

/** What /readyz shows of the engine: the node-llama-cpp internals it found and the snapshot store. */
export function llmReadiness(llm: { internals(): InternalProbe[]; kvStats(): KvStats | null } | null): Record<string, unknown> | null {
  if (!llm) return null;
  const kv = llm.kvStats();
  return {
    internals: Object.fromEntries(llm.internals().map((p) => [p.name, p.available])),
    kvSnapshots: kv ? { ...kv.store, restores: kv.restores, lookups: kv.lookups, saves: kv.saves } : null,
  };
}

/** node-llama-cpp's context options for a KV cache type; nothing for f16, its default. */
export function kvCacheTypes(type: LlmEngineOptions["kvCacheType"]): { experimentalKvCacheKeyType?: "Q8_0" | "Q4_0"; experimentalKvCacheValueType?: "Q8_0" | "Q4_0" } {
  if (!type || type === "f16") return {};
  const ggml = type === "q8_0" ? "Q8_0" : "Q4_0";
  return { experimentalKvCacheKeyType: ggml, experimentalKvCacheValueType: ggml };
}

/** The snapshot store of this model and context: its folder is named by everything a state depends on. */
export function snapshotStoreFor(kv: KvSnapshotOptions, modelPath: string, context: LlamaContext, llama: Llama): SnapshotStore {
  const fingerprint = modelFingerprint({
    modelPath,
    contextSize: context.contextSize,
    kvKeyType: String(context.kvCacheKeyType ?? "default"),
    kvValueType: String(context.kvCacheValueType ?? "default"),
    flashAttention: context.flashAttention === true,
    runtimeVersion: JSON.stringify(llama.llamaCppRelease),
  });
  return new SnapshotStore(kv.dir, fingerprint, kv.budgetBytes);
}
