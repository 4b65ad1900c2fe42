import { safeUrl } from "./backendsConfig.ts";
import { RemoteBackend } from "./remote/RemoteBackend.ts";
import type { BackendConfig } from "./types.ts";

export interface BackendCheck {
  backend: string;
  url: string;
  kind: string;
  ok: boolean;
  healthy: boolean;
  /** what the server says it serves (llama-server: the model file; others: the model id) */
  model: string | null;
  contextSize: number | null;
  completion: { text: string; promptTokens: number; completionTokens: number; ms: number } | null;
  error: string | null;
}

/** Probes each backend: health, model and context size, then a short test completion. The apiKey is used, never shown. */
export async function checkBackends(backends: BackendConfig[], opts: { timeoutMs?: number } = {}): Promise<BackendCheck[]> {
  return Promise.all(
    backends.map(async (config, i) => {
      const b = new RemoteBackend(config, `backend-${i}`);
      const out: BackendCheck = {
        backend: b.name,
        url: safeUrl(config.url),
        kind: config.kind,
        ok: false,
        healthy: false,
        model: null,
        contextSize: null,
        completion: null,
        error: null,
      };
      try {
        out.healthy = await b.probe(opts.timeoutMs ?? 5_000);
        if (!out.healthy) throw new Error(b.lastError ?? "health check failed");
        const facts = await b.describe(opts.timeoutMs ?? 5_000);
        out.model = facts.model;
        out.contextSize = facts.contextSize;
        const t0 = performance.now();
        const r = await b.chat({
          key: "lorehold-backends-check",
          messages: [{ role: "user", content: "Say hello in five words." }],
          maxTokens: 16,
          temperature: 0.2,
          jsonSchema: null,
          timeoutMs: Math.min(config.timeoutMs, 60_000),
          promptEstimate: 0,
        });
        out.completion = { text: r.text, promptTokens: r.promptTokens, completionTokens: r.completionTokens, ms: Math.round(performance.now() - t0) };
        out.ok = true;
      } catch (e) {
        out.error = e instanceof Error ? e.message : String(e);
      }
      return out;
    }),
  );
}
