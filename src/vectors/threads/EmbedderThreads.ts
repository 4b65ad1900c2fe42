import type { Embedder } from "../Embedder.ts";
import type { TransformersEmbedderOptions } from "../TransformersEmbedder.ts";
import { CLOSE_TIMEOUT_MS, EmbedderThread, EmbedderThreadError, type LoadedModel } from "./EmbedderThread.ts";

export interface EmbedderThreadsOptions extends TransformersEmbedderOptions {
  /** threads, each with its own session of the model (`threads` is then each session's intra-op threads, default 1) */
  count: number;
  /** the thread's code (tests start threads that can be made to fail) */
  entry?: string;
  /** how long dispose waits for a thread to finish its pass before leaving it behind (EmbedderThread.close) */
  closeTimeoutMs?: number;
}

/** A few texts: a turn's query, not an indexing batch. */
const SMALL_CALL = 2;

interface Call {
  vectors: Float32Array[];
  left: number;
  failed: boolean;
  resolve: (v: Float32Array[]) => void;
  reject: (e: Error) => void;
}

interface Item {
  call: Call;
  indices: number[];
  texts: string[];
}

/**
 * A sentence-embedding model run in `count` worker threads, one ONNX Runtime session each: texts are handed out
 * one pass at a time to whichever thread is free, so passes run side by side on the cores (onnxruntime-node runs a
 * pass synchronously on its calling thread: in one thread two sessions only take turns), and the JavaScript
 * thread stays free for requests while they run. A text's vector is the one TransformersEmbedder gives in-thread:
 * the same code runs in each thread. A call of a few texts (a turn's query) goes before the texts of an indexing
 * batch already waiting. A thread that dies fails the calls it was working for with EmbedderThreadError, and a
 * new one is started in its place; `dispose` ends them all.
 */
export class EmbedderThreads implements Embedder {
  private readonly slots: (EmbedderThread | null)[];
  private readonly starting: (Promise<void> | null)[];
  private queue: Item[] = [];
  /** calls with texts in a thread now */
  private readonly inFlight = new Set<Call>();
  private disposed = false;
  /** threads started in place of one that died */
  restarts = 0;
  private closeTimeoutMs = CLOSE_TIMEOUT_MS;

  private constructor(
    readonly id: string,
    readonly dims: number,
    readonly maxTokens: number,
    threads: EmbedderThread[],
    private readonly entry: string,
    private readonly dir: string,
    private readonly options: TransformersEmbedderOptions,
    private readonly batch: number,
  ) {
    this.slots = threads;
    this.starting = threads.map(() => null);
  }

  static async load(dir: string, opts: EmbedderThreadsOptions): Promise<EmbedderThreads> {
    const { count, entry = defaultEntry(), closeTimeoutMs = CLOSE_TIMEOUT_MS, ...rest } = opts;
    const options: TransformersEmbedderOptions = { threads: 1, ...rest };
    let pool: EmbedderThreads | null = null;
    const onDeath = (t: EmbedderThread) => pool?.died(t);
    const started = await Promise.allSettled(Array.from({ length: Math.max(1, Math.floor(count)) }, () => EmbedderThread.start(entry, dir, options, onDeath)));
    const failed = started.find((s) => s.status === "rejected");
    const ok = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
    if (failed) {
      await Promise.all(ok.map((s) => s.thread.close()));
      throw (failed as PromiseRejectedResult).reason;
    }
    const model: LoadedModel = ok[0].model;
    pool = new EmbedderThreads(model.id, model.dims, model.maxTokens, ok.map((s) => s.thread), entry, dir, options, Math.max(1, Math.floor(opts.batch ?? 1)));
    pool.closeTimeoutMs = closeTimeoutMs;
    return pool;
  }

  get threadCount(): number {
    return this.slots.length;
  }

  /** threads alive and loaded now (fewer than threadCount while one is being started again) */
  get liveThreads(): number {
    return this.slots.filter((t) => t !== null).length;
  }

  embed(texts: string[]): Promise<Float32Array[]> {
    if (this.disposed) return Promise.reject(new Error(`Embedder ${this.id} is disposed`));
    if (texts.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      const call: Call = { vectors: new Array(texts.length), left: texts.length, failed: false, resolve, reject };
      // Passes of like length together when a pass holds several texts (the in-thread embedder sorts them too).
      const order = texts.map((_, i) => i);
      if (this.batch > 1) order.sort((a, b) => texts[a].length - texts[b].length);
      const items: Item[] = [];
      for (let i = 0; i < order.length; i += this.batch) {
        const indices = order.slice(i, i + this.batch);
        items.push({ call, indices, texts: indices.map((j) => texts[j]) });
      }
      this.queue = texts.length <= SMALL_CALL ? [...items, ...this.queue] : [...this.queue, ...items];
      this.pump();
    });
  }

  /**
   * Fails every call not yet answered, then ends the threads: each finishes the pass it is in (a few texts), releases
   * its session and ends (EmbedderThread.close, bounded). Resolves once they have ended, or been left behind.
   */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    const gone = new Error(`Embedder ${this.id} is disposed`);
    this.failQueued(gone);
    for (const call of this.inFlight) fail(call, gone);
    this.inFlight.clear();
    const closing = this.slots.map((t) => t?.close(this.closeTimeoutMs));
    // a thread being started again is closed by restart once it has loaded
    await Promise.all(this.starting.map((s) => s?.catch(() => {})));
    await Promise.all([...closing, ...this.slots.map((t) => t?.close(this.closeTimeoutMs))]);
  }

  /** Hands waiting texts to free threads; starts a thread in a dead one's place when there is work for it. */
  private pump(): void {
    if (this.disposed) return;
    this.queue = this.queue.filter((item) => !item.call.failed);
    for (let s = 0; s < this.slots.length && this.queue.length > 0; s++) {
      const thread = this.slots[s];
      if (!thread) {
        if (!this.starting[s]) this.restart(s);
        continue;
      }
      if (thread.busy) continue;
      const item = this.queue.shift()!;
      this.inFlight.add(item.call);
      thread
        .embed(item.texts)
        .then((vectors) => {
          const { call } = item;
          if (call.failed) return;
          item.indices.forEach((i, k) => (call.vectors[i] = vectors[k]));
          call.left -= item.indices.length;
          if (call.left === 0) {
            this.inFlight.delete(call);
            call.resolve(call.vectors);
          }
        })
        .catch((e: Error) => {
          this.inFlight.delete(item.call);
          fail(item.call, e);
        })
        .finally(() => this.pump());
    }
  }

  private died(thread: EmbedderThread): void {
    const s = this.slots.indexOf(thread);
    if (s < 0) return;
    this.slots[s] = null;
    // Once per death: a thread that cannot load is not started again until there is work for it (pump).
    if (!this.disposed && !this.starting[s]) this.restart(s);
  }

  private restart(s: number): void {
    this.starting[s] = EmbedderThread.start(this.entry, this.dir, this.options, (t) => this.died(t))
      .then(async ({ thread, model }) => {
        if (this.disposed || model.id !== this.id) {
          await thread.close(this.closeTimeoutMs);
          if (!this.disposed) throw new Error(`the model now loads as ${model.id}, not ${this.id}`);
          return;
        }
        this.slots[s] = thread;
        this.restarts++;
      })
      .catch((e: Error) => {
        // With no thread left to do it, the waiting work fails now instead of waiting for ever.
        if (this.slots.every((t) => !t)) this.failQueued(new EmbedderThreadError(`An embedding thread could not be restarted: ${e.message}`));
      })
      .finally(() => {
        this.starting[s] = null;
        this.pump();
      });
  }

  private failQueued(e: Error): void {
    for (const item of this.queue) fail(item.call, e);
    this.queue = [];
  }
}

function fail(call: Call, e: Error): void {
  if (call.failed) return;
  call.failed = true;
  call.reject(e);
}

/**
 * The thread's code: beside this file when run from source. In the executable every module's import.meta.url is
 * the bundle's root and the build embeds the entry under its path from src/ (scripts/build/buildExecutable.ts),
 * as for the scanner's extraction thread (src/scanner/worker/idleThread.ts).
 */
function defaultEntry(): string {
  const embedded = import.meta.url.includes("/$bunfs/") || import.meta.url.includes("~BUN");
  return new URL(embedded ? "./vectors/threads/embedderThreadEntry.ts" : "./embedderThreadEntry.ts", import.meta.url).href;
}
