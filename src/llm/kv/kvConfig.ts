import { dataPaths, type Config } from "../../config/config.ts";
import type { InternalProbe } from "../internals.ts";
import type { KvSnapshotOptions, KvStats, LlmEngineOptions } from "../types.ts";
import type { Llama, LlamaContext, LlamaContextOptions, LlamaModel } from "node-llama-cpp";
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

/**
 * The context with the KV cache type asked for, or with f16 when llama.cpp would refuse it for this
 * model: a quantized cache stores each attention head in blocks of 32 values, so a head size that is
 * not a multiple of 32 fails context creation (and a failed creation leaves the model unable to
 * dispose). Checked from the GGUF's shapes first; the server starts either way, and the snapshot
 * folder is named by the type the context really has.
 */
export async function createContextWithKvType(model: LlamaModel, type: LlmEngineOptions["kvCacheType"], options: LlamaContextOptions): Promise<LlamaContext> {
  const quantized = kvCacheTypes(type);
  const fits = headSizes(model).every((n) => n > 0 && n % QUANT_BLOCK === 0);
  return model.createContext(quantized.experimentalKvCacheKeyType && fits ? { ...options, ...quantized } : options);
}

/** Values per block of q8_0 and q4_0. */
const QUANT_BLOCK = 32;

/** The K and V head sizes from the GGUF (explicit key/value lengths, else width ÷ heads); [0] when unknown. */
function headSizes(model: LlamaModel): number[] {
  const md = model.fileInfo.metadata as unknown as Record<string, Record<string, unknown> | undefined> & { general?: { architecture?: string } };
  const arch = md[md.general?.architecture ?? ""] as { embedding_length?: number; attention?: { head_count?: number | number[]; key_length?: number; value_length?: number } } | undefined;
  const heads = Array.isArray(arch?.attention?.head_count) ? Math.max(...arch.attention.head_count) : arch?.attention?.head_count;
  const fallback = arch?.embedding_length && heads ? arch.embedding_length / heads : 0;
  return [arch?.attention?.key_length ?? fallback, arch?.attention?.value_length ?? fallback];
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
