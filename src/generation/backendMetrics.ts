import { Gauge, type Registry } from "prom-client";
import { safeUrl } from "./backendsConfig.ts";
import type { BackendState, BackendStatus } from "./types.ts";

const STATE_VALUE: Record<BackendState, number> = { up: 1, "half-open": 0.5, unknown: 0.5, down: 0 };

/** Prometheus gauges per generation backend, read at scrape time (labels: backend name and URL without credentials). */
export function backendGauges(registers: Registry[], statuses: () => BackendStatus[]): void {
  const gauge = (name: string, help: string, value: (s: BackendStatus) => number | null) =>
    new Gauge({
      name,
      help,
      labelNames: ["backend", "url", "kind"],
      registers,
      collect() {
        this.reset();
        for (const s of statuses()) {
          const v = value(s);
          if (v !== null) this.set({ backend: s.name, url: safeUrlOrLocal(s.url), kind: s.kind }, v);
        }
      },
    });
  gauge("lorehold_backend_up", "Generation backend state: 1 up, 0.5 half-open or not yet probed, 0 down (circuit open)", (s) => STATE_VALUE[s.state]);
  gauge("lorehold_backend_in_flight", "Generations running on the backend now", (s) => s.inFlight);
  gauge("lorehold_backend_requests", "Generation attempts sent to the backend since start", (s) => s.requests);
  gauge("lorehold_backend_errors", "Failed generation attempts on the backend since start", (s) => s.errors);
  gauge("lorehold_backend_cached_prompt_tokens", "Prompt tokens the backend served from its cache (as it reported)", (s) => s.cachedPromptTokens);
  gauge("lorehold_backend_tail_gates_unread", "Typed turns whose action choice the backend sampled instead of gating it: it gives no token probabilities", (s) => s.tailGatesUnread ?? null);
  gauge("lorehold_backend_latency_p50_ms", "Median duration of the backend's recent generations (ms)", (s) => s.latencyP50Ms);
  gauge("lorehold_backend_latency_p99_ms", "99th percentile duration of the backend's recent generations (ms)", (s) => s.latencyP99Ms);
}

function safeUrlOrLocal(url: string): string {
  return url === "in-process" ? url : safeUrl(url);
}
