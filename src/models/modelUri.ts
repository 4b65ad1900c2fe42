import { ModelDownloadError } from "./ModelDownloadError.ts";

export const DEFAULT_HF_ENDPOINT = "https://huggingface.co";

export interface ResolvedModelUri {
  url: string;
  /** The file name the model gets in modelsDir (the URL's last path segment unless --name says otherwise). */
  fileName: string;
}

export interface ResolveOptions {
  /** Hugging Face base URL (`HF_ENDPOINT`, as huggingface_hub reads it); default https://huggingface.co. */
  hfEndpoint?: string;
  headers?: Record<string, string>;
  fetch?: typeof fetch;
}

const HF_FILE = /^hf:([\w.-]+)\/([\w.-]+)\/([^#]+?)(?:#([\w./-]+))?$/;
const HF_REPO = /^hf:([\w.-]+)\/([\w.-]+)(?::([\w.-]+))?(?:#([\w./-]+))?$/;
const SPLIT_PART = /-(\d{5})-of-(\d{5})\.gguf$/i;

/**
 * Turns `model pull`'s argument into a download URL:
 *  - `https://…` and `http://…` as they are;
 *  - `hf:<user>/<repo>/<path/file.gguf>[#branch]` → `<endpoint>/<user>/<repo>/resolve/<branch|main>/<path>`;
 *  - `hf:<user>/<repo>[:<quant>][#branch]` → the repo's one GGUF file whose name holds `<quant>`
 *    (found through the Hub's model API; an ambiguous or absent match is an error listing the files).
 */
export async function resolveModelUri(uri: string, opts: ResolveOptions = {}): Promise<ResolvedModelUri> {
  const endpoint = (opts.hfEndpoint || DEFAULT_HF_ENDPOINT).replace(/\/+$/, "");
  if (/^https?:\/\//i.test(uri)) {
    let parsed: URL;
    try {
      parsed = new URL(uri);
    } catch {
      throw new ModelDownloadError(`not a valid URL: ${uri}`);
    }
    const last = decodeURIComponent(parsed.pathname.split("/").filter(Boolean).at(-1) ?? "");
    return { url: parsed.href, fileName: last };
  }
  const file = HF_FILE.exec(uri);
  if (file && /\.[a-z0-9]+$/i.test(file[3])) {
    const [, user, repo, path, branch] = file;
    return { url: hfResolveUrl(endpoint, user, repo, branch ?? "main", path), fileName: path.split("/").at(-1)! };
  }
  const repo = HF_REPO.exec(uri);
  if (repo) {
    const [, user, name, quant, branch] = repo;
    const path = await pickQuantFile(endpoint, user, name, quant ?? null, branch ?? "main", opts);
    return { url: hfResolveUrl(endpoint, user, name, branch ?? "main", path), fileName: path.split("/").at(-1)! };
  }
  throw new ModelDownloadError(
    `unsupported model URI '${uri}': use https://…, hf:<user>/<repo>/<file.gguf> or hf:<user>/<repo>:<quant> (e.g. hf:Qwen/Qwen2.5-0.5B-Instruct-GGUF:Q4_K_M)`,
  );
}

function hfResolveUrl(endpoint: string, user: string, repo: string, branch: string, path: string): string {
  const encoded = path.split("/").map(encodeURIComponent).join("/");
  return `${endpoint}/${user}/${repo}/resolve/${encodeURIComponent(branch)}/${encoded}`;
}

/** One request to the Hub's model API: the repo's file list, to find `<quant>`'s GGUF. */
async function pickQuantFile(endpoint: string, user: string, repo: string, quant: string | null, branch: string, opts: ResolveOptions): Promise<string> {
  const doFetch = opts.fetch ?? fetch;
  const api = `${endpoint}/api/models/${user}/${repo}${branch === "main" ? "" : `/revision/${encodeURIComponent(branch)}`}`;
  let res: Response;
  try {
    res = await doFetch(api, { headers: opts.headers });
  } catch (e) {
    throw new ModelDownloadError(`cannot reach ${endpoint} to list hf:${user}/${repo}: ${(e as Error).message}`);
  }
  if (res.status === 401 || res.status === 404) {
    throw new ModelDownloadError(`Hugging Face repo ${user}/${repo} not found (HTTP ${res.status}; a gated or private repo needs HF_TOKEN)`);
  }
  if (!res.ok) throw new ModelDownloadError(`listing hf:${user}/${repo} failed: HTTP ${res.status}`);
  const body = (await res.json()) as { siblings?: Array<{ rfilename?: string }> };
  const ggufs = (body.siblings ?? []).map((s) => s.rfilename ?? "").filter((n) => /\.gguf$/i.test(n));
  // A split model's later parts are not models of their own; llama.cpp opens part 1 and finds the rest.
  const firstParts = ggufs.filter((n) => !SPLIT_PART.test(n) || SPLIT_PART.exec(n)![1] === "00001");
  const wanted = quant?.toLowerCase();
  const matches = wanted ? firstParts.filter((n) => quantMatches(n, wanted)) : firstParts;
  if (matches.length === 1) {
    if (SPLIT_PART.test(matches[0])) {
      throw new ModelDownloadError(`${matches[0]} is split into parts; pull each part by its hf:${user}/${repo}/<file> URI`);
    }
    return matches[0];
  }
  const list = firstParts.length ? firstParts.join(", ") : "none";
  if (matches.length === 0) {
    throw new ModelDownloadError(`no GGUF file${quant ? ` for quant '${quant}'` : ""} in hf:${user}/${repo} (GGUF files: ${list})`);
  }
  throw new ModelDownloadError(
    `hf:${user}/${repo}${quant ? `:${quant}` : ""} matches several files (${matches.join(", ")}); name one: hf:${user}/${repo}/<file.gguf>`,
  );
}

/** `q4_k_m` matches `model-Q4_K_M.gguf` and `model.q4_k_m.gguf` but not `model-Q4_K_M_L.gguf` … or `IQ4_K_M`. */
function quantMatches(fileName: string, quant: string): boolean {
  const name = fileName.split("/").at(-1)!.toLowerCase().replace(SPLIT_PART, ".gguf");
  const i = name.lastIndexOf(quant);
  if (i < 0) return false;
  const before = name[i - 1];
  const after = name.slice(i + quant.length);
  return (before === undefined || /[-_.]/.test(before)) && /^\.gguf$/.test(after);
}
