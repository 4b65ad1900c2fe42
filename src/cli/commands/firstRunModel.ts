import { createInterface } from "node:readline/promises";
import { resolveModelPath } from "../../llm/resolveModel.ts";
import { DEFAULT_HF_ENDPOINT, resolveModelUri } from "../../models/modelUri.ts";
import { downloadModel } from "../../models/downloadModel.ts";
import { createDownloadProgressBar, lineStream } from "../../models/downloadProgressBar.ts";
import type { Config } from "../../config/config.ts";
import type { CliIo } from "../cliTypes.ts";
import { noModelAdvice, RECOMMENDED_CHAT_MODEL } from "../../models/noModelAdvice.ts";

export { noModelAdvice, RECOMMENDED_CHAT_MODEL };

/** How long the reachability probe waits: a first run offline must not hang. */
const PROBE_TIMEOUT_MS = 4_000;

export type FirstRunOutcome = "present" | "remote" | "pulled" | "declined" | "skipped" | "offline" | "failed";

export interface FirstRunOptions {
  /** `--pull`: download without asking (scripts, images); `--no-pull` / LOREHOLD_NO_PULL=1: never offer. */
  pull?: "ask" | "yes" | "no";
  /** A terminal to ask on: without one (CI, a service manager, piped stdin) nothing is offered. */
  interactive: boolean;
  env: Record<string, string | undefined>;
  /** Asks the question; default reads a line from stdin. Returns the answer. */
  ask?: (question: string) => Promise<string>;
  fetch?: typeof fetch;
}

function advise(io: CliIo, config: Config, why: string): void {
  for (const line of noModelAdvice(config.modelsDir, why)) io.err(line);
}

async function askOnStdin(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await rl.question(question);
  } finally {
    rl.close();
  }
}

/** Any HTTP answer at all means the network (and the host) can be reached. */
async function reachable(url: string, headers: Record<string, string>, f: typeof fetch): Promise<boolean> {
  try {
    const res = await f(url, { method: "HEAD", headers, redirect: "manual", signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    await res.body?.cancel();
    return true;
  } catch {
    return false;
  }
}

/**
 * `npm start` on a machine with no chat model: offer the recommended one and pull it with `model pull`'s
 * resumable, checksummed download (progress bar on stderr), so that the first run ends with an NPC that
 * answers. Never asks without a terminal, never throws: the server starts either way.
 * LOREHOLD_FIRST_RUN_MODEL (+ LOREHOLD_FIRST_RUN_MODEL_SHA256) names another model (tests use a local server).
 */
export async function ensureChatModel(config: Config, io: CliIo, opts: FirstRunOptions): Promise<FirstRunOutcome> {
  // Replies come from the configured servers: a local model would never be loaded, so never offer one.
  if (config.generation === "remote") return "remote";
  if (resolveModelPath(config.modelsDir, config.model ?? undefined) !== null) return "present";
  // A `model` setting naming a file that is not there is the operator's choice: do not replace it.
  if (config.model) return "skipped";
  const env = opts.env;
  const pull = env.LOREHOLD_NO_PULL === "1" || env.LOREHOLD_NO_PULL === "true" ? "no" : (opts.pull ?? "ask");
  if (pull === "no" || (pull === "ask" && !opts.interactive)) {
    advise(io, config, `No chat model in ${config.modelsDir}.`);
    return "skipped";
  }
  const uri = env.LOREHOLD_FIRST_RUN_MODEL || RECOMMENDED_CHAT_MODEL.uri;
  const label = env.LOREHOLD_FIRST_RUN_MODEL ? uri : RECOMMENDED_CHAT_MODEL.label;
  const hfEndpoint = env.HF_ENDPOINT || DEFAULT_HF_ENDPOINT;
  const hfHeaders: Record<string, string> = env.HF_TOKEN ? { authorization: `Bearer ${env.HF_TOKEN}` } : {};
  const f = opts.fetch ?? fetch;
  let resolved;
  try {
    resolved = await resolveModelUri(uri, { hfEndpoint, headers: hfHeaders, fetch: f });
  } catch {
    advise(io, config, `No chat model in ${config.modelsDir}, and the model host cannot be reached (offline?).`);
    return "offline";
  }
  const headers = new URL(resolved.url).origin === new URL(hfEndpoint).origin ? hfHeaders : {};
  if (!(await reachable(resolved.url, headers, f))) {
    advise(io, config, `No chat model in ${config.modelsDir}, and the model host cannot be reached (offline?).`);
    return "offline";
  }
  if (pull === "ask") {
    const answer = (await (opts.ask ?? askOnStdin)(`No chat model yet. Download ${label} into ${config.modelsDir} now? [Y/n] `)).trim().toLowerCase();
    if (answer !== "" && answer !== "y" && answer !== "yes") {
      advise(io, config, "Not downloading.");
      return "declined";
    }
  }
  const bar = createDownloadProgressBar(resolved.fileName, process.stderr.isTTY ? process.stderr : lineStream((l) => io.err(l)));
  try {
    const r = await downloadModel({
      url: resolved.url,
      dir: config.modelsDir,
      fileName: resolved.fileName,
      sha256: env.LOREHOLD_FIRST_RUN_MODEL_SHA256 || undefined,
      headers,
      onProgress: (p) => bar.update(p),
      fetch: f,
    });
    bar.stop();
    io.err(`Downloaded ${r.path} (sha256 ${r.sha256}); loading it.`);
    return "pulled";
  } catch (e) {
    bar.stop();
    advise(io, config, `Download failed: ${e instanceof Error ? e.message : String(e)}. \`lorehold model pull\` resumes it.`);
    return "failed";
  }
}
