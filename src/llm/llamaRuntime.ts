import { getLlama, LlamaLogLevel, type Llama } from "node-llama-cpp";

export type LlamaLogLevelName = "error" | "warn" | "info" | "debug";

const LOG_LEVELS: Record<LlamaLogLevelName, LlamaLogLevel> = {
  error: LlamaLogLevel.error,
  warn: LlamaLogLevel.warn,
  info: LlamaLogLevel.info,
  debug: LlamaLogLevel.debug,
};

const runtimes = new Map<string, Promise<Llama>>();

/**
 * The process's node-llama-cpp runtime, created once and shared by every engine (one per thread
 * budget and log level), never disposed by an engine:
 * - llama.cpp's backend is process-wide: node-llama-cpp's `Llama.dispose()` frees it for every
 *   instance in the process (the addon's `dispose`), so an engine disposing "its" runtime pulled
 *   the backend from under any other engine alive in the process.
 * - From source on Linux, every `getLlama()` forks a child process to test the prebuilt binary
 *   (~250 ms each, and a fork is one more thing that can stall a start); the single executable
 *   skips that test altogether (scripts/build/patches/disableLlamaBinaryTest.ts).
 * - The thread budget is the runtime's: contexts of engines sharing it split `threads` between
 *   them rather than each taking all of them, which on a small CPU is what they should do.
 * Never downloads or compiles at run time. A failed start is forgotten, so the next call retries.
 */
export function sharedLlama(threads: number, logLevel: LlamaLogLevelName = "warn"): Promise<Llama> {
  const key = `${threads}:${logLevel}`;
  let runtime = runtimes.get(key);
  if (!runtime) {
    runtime = getLlama({ gpu: false, build: "never", maxThreads: threads, logLevel: LOG_LEVELS[logLevel] });
    runtimes.set(key, runtime);
    runtime.catch(() => runtimes.delete(key));
  }
  return runtime;
}
