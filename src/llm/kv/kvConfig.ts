import { dataPaths, type Config } from "../../config/config.ts";
import type { InternalProbe } from "../internals.ts";
import type { KvSnapshotOptions, KvStats } from "../types.ts";

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
