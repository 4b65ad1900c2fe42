import { nativesForThread } from "../../runtime/threadNatives.ts";
import type { TransformersEmbedderOptions } from "../TransformersEmbedder.ts";
import type { FromEmbedderThread, ToEmbedderThread } from "./threadMessages.ts";

/** An embedding thread died or failed to load: what it was doing fails with this, and a new thread takes its place. */
export class EmbedderThreadError extends Error {}

export interface LoadedModel {
  id: string;
  dims: number;
  maxTokens: number;
}

/** How long `close` waits for a thread to finish the pass under way before it leaves the thread behind. */
export const CLOSE_TIMEOUT_MS = 10_000;

/**
 * The main thread's handle on one embedding thread (embedderThreadEntry.ts): loads the model there, hands it texts,
 * and turns the thread's death (an uncaught error, an exit) into the rejection of everything it held.
 * An idle thread does not keep the process alive.
 *
 * A thread is never terminated from here while it may be inside ONNX Runtime: a terminate that lands during a pass
 * makes onnxruntime-node's binding throw a C++ exception it cannot hand to the terminating thread's JavaScript, and
 * that aborts the whole process. So `close` asks the thread to finish its pass and release its session, and
 * terminates it only once it has answered (idle, between messages). A thread that ends itself (an exit, an uncaught
 * error: Bun ends the worker then) is only waited for.
 */
export class EmbedderThread {
  /** threads of this process not yet ended (counted down when a thread's "close" event says it has) */
  static running = 0;
  /** threads that did not answer `close` in time and were left to end on their own */
  static abandoned = 0;
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve: (v: Float32Array[]) => void; reject: (e: Error) => void }>();
  private nextId = 0;
  private loading: { resolve: (m: LoadedModel) => void; reject: (e: Error) => void } | null = null;
  private readonly ended: Promise<void>;
  private closing: Promise<void> | null = null;
  private exited = false;
  dead: Error | null = null;

  private constructor(entry: string, private readonly onDeath: (t: EmbedderThread) => void) {
    this.worker = new Worker(entry);
    this.worker.onmessage = (e: MessageEvent<FromEmbedderThread>) => this.receive(e.data);
    this.worker.onerror = (e) => {
      this.die(new EmbedderThreadError(`The embedding thread failed: ${e.message}`));
      // Bun ends a worker after an uncaught error; should one live on, it is closed the safe way, not left idle.
      void this.close();
    };
    EmbedderThread.running++;
    this.ended = new Promise((resolve) =>
      this.worker.addEventListener("close", () => {
        EmbedderThread.running--;
        this.exited = true;
        this.die(new EmbedderThreadError("The embedding thread exited"));
        resolve();
      }),
    );
    this.worker.unref();
  }

  /** Starts a thread and loads the model in it; rejects (and ends the thread) when the model does not load. */
  static async start(entry: string, dir: string, options: TransformersEmbedderOptions, onDeath: (t: EmbedderThread) => void): Promise<{ thread: EmbedderThread; model: LoadedModel }> {
    const thread = new EmbedderThread(entry, onDeath);
    thread.worker.ref();
    try {
      const model = await new Promise<LoadedModel>((resolve, reject) => {
        thread.loading = { resolve, reject };
        thread.post({ type: "load", dir, options, natives: nativesForThread() });
      });
      return { thread, model };
    } catch (e) {
      await thread.close();
      throw e;
    } finally {
      thread.loading = null;
      thread.worker.unref();
    }
  }

  get busy(): boolean {
    return this.pending.size > 0;
  }

  embed(texts: string[]): Promise<Float32Array[]> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.nextId++;
    if (this.pending.size === 0) this.worker.ref();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.post({ type: "embed", id, texts });
    });
  }

  /**
   * Ends the thread: what it held fails now; the thread finishes the pass under way, releases its session and is
   * then terminated. Resolves when the thread has ended, or after `timeoutMs` if it has not answered by then (a
   * pass that long, or a thread stuck in native code): that thread is left unreferenced (it does not hold the
   * process open) and is terminated if it ever answers; terminating it now could abort the process.
   */
  close(timeoutMs = CLOSE_TIMEOUT_MS): Promise<void> {
    if (this.closing) return this.closing;
    this.die(new EmbedderThreadError("The embedding thread was stopped"));
    if (this.exited) return (this.closing = this.ended);
    this.worker.ref();
    this.post({ type: "close" });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), timeoutMs)));
    this.closing = Promise.race([this.ended, timedOut]).then((how) => {
      clearTimeout(timer);
      if (how === "timeout") {
        EmbedderThread.abandoned++;
        this.worker.unref();
      }
    });
    return this.closing;
  }

  private receive(m: FromEmbedderThread): void {
    if (m.type === "closed") this.worker.terminate();
    else if (m.type === "loaded") this.loading?.resolve(m);
    else if (m.type === "failed" && m.id === null) this.loading?.reject(new Error(m.message));
    else if (m.id !== null) {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (this.pending.size === 0 && !this.closing) this.worker.unref();
      if (m.type === "vectors") p.resolve(m.vectors);
      else p.reject(new Error(m.message));
    }
  }

  private die(e: Error): void {
    if (this.dead) return;
    this.dead = e;
    this.loading?.reject(e);
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
    this.onDeath(this);
  }

  private post(m: ToEmbedderThread): void {
    this.worker.postMessage(m);
  }
}
