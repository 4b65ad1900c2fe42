// Real llama-server processes for the remote-generation tests and bench: the binary scripts/ci/backends.sh
// builds (from the llama.cpp source node-llama-cpp ships) into a cache dir outside the clone.
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";

const ROOT = join(import.meta.dir, "..", "..");

/** Path of the cached llama-server binary, or null (the caller skips with a warning). */
export function llamaServerBinary(): string | null {
  const explicit = process.env.LOREHOLD_LLAMA_SERVER;
  if (explicit) return existsSync(explicit) ? explicit : null;
  let version = "unknown";
  try {
    version = JSON.parse(readFileSync(join(ROOT, "node_modules/node-llama-cpp/llama/llama.cpp.info.json"), "utf8")).tag ?? version;
  } catch {}
  const cache = process.env.LOREHOLD_LLAMA_SERVER_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "lorehold-llama-server");
  const bin = join(cache, version, "build", "bin", "llama-server");
  return existsSync(bin) ? bin : null;
}

export function warnNoLlamaServer(what: string): void {
  console.warn(
    `\n⚠️  SKIPPED ${what}: no llama-server binary. Build it once with scripts/ci/backends.sh ` +
      `(CPU build from node_modules/node-llama-cpp/llama/gitRelease.bundle into ~/.cache/lorehold-llama-server), ` +
      `or set LOREHOLD_LLAMA_SERVER to a llama-server path.\n`,
  );
}

export interface LlamaServer {
  url: string;
  port: number;
  proc: Subprocess;
  /** SIGKILL, like a crashed machine */
  kill(): Promise<void>;
  /** starts it again on the same port (after kill) */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
}

async function waitHealthy(url: string, proc: Subprocess, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (proc.exitCode !== null) throw new Error(`llama-server exited with ${proc.exitCode}`);
    try {
      const r = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1_000) });
      if (r.ok) return;
    } catch {}
    await Bun.sleep(100);
  }
  throw new Error(`llama-server at ${url} not healthy after ${timeoutMs} ms`);
}

/** Starts llama-server on the model with `parallel` slots of `slotContext` tokens each, 1 thread (2 shared cores). */
export async function startLlamaServer(opts: { binary: string; model: string; parallel?: number; slotContext?: number; threads?: number; extraArgs?: string[] }): Promise<LlamaServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const parallel = opts.parallel ?? 2;
  const args = [
    opts.binary,
    "-m", opts.model,
    "--host", "127.0.0.1",
    "--port", String(port),
    "-np", String(parallel),
    "-c", String((opts.slotContext ?? 2048) * parallel),
    "--no-kv-unified",
    "-t", String(opts.threads ?? 1),
    "-tb", String(opts.threads ?? 1),
    "--no-webui",
    "--no-warmup",
    // llama-server's AMX-repacked quantised weights crash its first decode on a CPU with AMX (an Intel Xeon of the
    // machines the suite runs on); the plain layout runs on every x86-64 CPU
    "--no-repack",
    ...(opts.extraArgs ?? []),
  ];
  const spawn = () => Bun.spawn(args, { stdout: "ignore", stderr: process.env.LOREHOLD_LLAMA_SERVER_LOG ? "inherit" : "ignore" });
  const server: LlamaServer = {
    url,
    port,
    proc: spawn(),
    async kill() {
      server.proc.kill("SIGKILL");
      await server.proc.exited;
    },
    async restart() {
      server.proc = spawn();
      await waitHealthy(url, server.proc, 60_000);
    },
    async stop() {
      if (server.proc.exitCode === null) {
        server.proc.kill("SIGTERM");
        await Promise.race([server.proc.exited, Bun.sleep(3_000)]);
        if (server.proc.exitCode === null) server.proc.kill("SIGKILL");
      }
    },
  };
  await waitHealthy(url, server.proc, 60_000);
  return server;
}
