import { Gauge, type Registry } from "prom-client";
import type { KvStats } from "../types.ts";

/**
 * KV snapshot metrics, read at scrape time from the engine's counters (gauges that only grow act
 * as counters: rate() works on them). Hit rate = restores ÷ lookups.
 */
export function registerKvMetrics(registry: Registry, kvStats: () => KvStats | null | undefined): void {
  const registers = [registry];
  const gauge = (name: string, help: string, read: (kv: KvStats) => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        const kv = kvStats();
        this.set(kv ? read(kv) : 0);
      },
    });
  gauge("lorehold_kv_lookups_total", "Turns of a conversation not resident in a sequence (each looked for a KV snapshot)", (k) => k.lookups);
  gauge("lorehold_kv_restores_total", "Turns started from a restored KV snapshot (conversation or mind prefix)", (k) => k.restores);
  gauge("lorehold_kv_prefix_restores_total", "New conversations started from their mind's prefix snapshot", (k) => k.prefixRestores);
  gauge("lorehold_kv_restore_hit_ratio", "Restores ÷ lookups", (k) => (k.lookups ? k.restores / k.lookups : 0));
  gauge("lorehold_kv_restored_tokens_total", "Prompt tokens restored instead of evaluated", (k) => k.restoredTokens);
  gauge("lorehold_kv_restore_seconds_total", "Time spent restoring snapshots", (k) => k.restoreMsTotal / 1000);
  gauge("lorehold_kv_restore_failures_total", "Restores refused or failed (answered cold)", (k) => k.restoreFailures + k.store.refused);
  gauge("lorehold_kv_restores_skipped_total", "Restores skipped because evaluating was estimated cheaper", (k) => k.skippedCheaper);
  gauge("lorehold_kv_saves_total", "Conversation snapshots saved", (k) => k.saves);
  gauge("lorehold_kv_eviction_saves_total", "Saves on the request path (an evicted conversation not yet saved)", (k) => k.evictionSaves);
  gauge("lorehold_kv_prefix_saves_total", "Mind prefix snapshots saved", (k) => k.prefixSaves);
  gauge("lorehold_kv_save_failures_total", "Saves skipped or failed (disk full or read-only)", (k) => k.saveFailures);
  gauge("lorehold_kv_save_hold_seconds_total", "Time saves held a sequence (taking its state; packing runs off it)", (k) => k.saveHoldMsTotal / 1000);
  gauge("lorehold_kv_saved_bytes_total", "Bytes of snapshots written", (k) => k.savedBytes);
  gauge("lorehold_kv_store_bytes", "Bytes of KV snapshots on disk", (k) => k.store.bytes);
  gauge("lorehold_kv_store_files", "KV snapshots on disk", (k) => k.store.files);
}
