import type { BackendConfig, BackendKind, GenerationMode } from "./types.ts";

const KINDS: readonly BackendKind[] = ["llama-server", "vllm", "ollama", "openai"];
const MODES: readonly GenerationMode[] = ["local", "remote"];

/** What `[[backends]]` entries are read into; errors are thrown as `fail(message)`. */
export function parseBackends(raw: unknown, source: string, fail: (msg: string) => Error): BackendConfig[] {
  let list = raw;
  if (typeof raw === "string") {
    const text = raw.trim();
    if (text === "") return [];
    if (text.startsWith("[")) {
      try {
        list = JSON.parse(text);
      } catch {
        throw fail(`backends (${source}) is neither a JSON array nor a comma-separated list of URLs`);
      }
    } else {
      list = text.split(",").map((url) => ({ url: url.trim() }));
    }
  }
  if (!Array.isArray(list)) throw fail(`backends (${source}) must be a list of tables ([[backends]])`);
  return list.map((entry, i) => parseOne(entry, `backends[${i}] (${source})`, fail));
}

function parseOne(entry: unknown, where: string, fail: (msg: string) => Error): BackendConfig {
  if (!entry || typeof entry !== "object" || Array.isArray(entry)) throw fail(`${where} must be a table`);
  const e = entry as Record<string, unknown>;
  const known = new Set(["url", "model", "apiKey", "maxConcurrent", "weight", "timeoutMs", "kind"]);
  for (const k of Object.keys(e)) if (!known.has(k)) throw fail(`${where}: unknown key '${k}' (expected ${[...known].join(", ")})`);
  const url = typeof e.url === "string" ? e.url.trim().replace(/\/+$/, "") : "";
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw fail(`${where}: url must be an http(s) URL (got ${JSON.stringify(e.url ?? null)})`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw fail(`${where}: url must be an http(s) URL`);
  const kind = (e.kind ?? "llama-server") as BackendKind;
  if (!KINDS.includes(kind)) throw fail(`${where}: kind must be one of ${KINDS.join(", ")}`);
  const model = e.model === undefined ? (kind === "llama-server" ? "default" : "") : String(e.model).trim();
  if (!model) throw fail(`${where}: model is required for kind ${kind} (the name the server serves)`);
  const int = (name: string, dflt: number, min: number) => {
    const v = e[name];
    if (v === undefined) return dflt;
    const n = typeof v === "number" ? v : Number(String(v).trim());
    if (!Number.isInteger(n) || n < min) throw fail(`${where}: ${name} must be an integer of at least ${min}`);
    return n;
  };
  const weight = e.weight === undefined ? 1 : Number(e.weight);
  if (!Number.isFinite(weight) || weight <= 0) throw fail(`${where}: weight must be a positive number`);
  const apiKey = e.apiKey === undefined || e.apiKey === null || e.apiKey === "" ? null : String(e.apiKey);
  return { url, model, apiKey, maxConcurrent: int("maxConcurrent", 4, 1), weight, timeoutMs: int("timeoutMs", 0, 0), kind };
}

export function parseGenerationMode(raw: unknown, source: string, fail: (msg: string) => Error): GenerationMode {
  const v = String(raw).trim() as GenerationMode;
  if (!MODES.includes(v)) throw fail(`generation (${source}) must be "local" or "remote"`);
  return v;
}

/** After all layers: timeouts default to the generation timeout; an apiKey from the environment fills entries without one; remote needs backends. */
export function finalizeBackends(
  cfg: { generation: GenerationMode; backends: BackendConfig[]; generationTimeoutMs: number },
  envApiKey: string | undefined,
  fail: (msg: string) => Error,
): void {
  for (const b of cfg.backends) {
    if (b.timeoutMs === 0) b.timeoutMs = cfg.generationTimeoutMs;
    if (!b.apiKey && envApiKey) b.apiKey = envApiKey;
  }
  if (cfg.generation === "remote" && cfg.backends.length === 0) throw fail('generation = "remote" needs at least one [[backends]] entry');
}

/** A backend's URL as logs and /readyz may show it: no credentials in it. */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = "";
    u.password = "";
    return u.toString().replace(/\/+$/, "");
  } catch {
    return "(invalid url)";
  }
}
