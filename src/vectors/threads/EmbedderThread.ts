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

/**
 * The main thread's handle on one embedding thread (embedderThreadEntry.ts): loads the model there, hands it texts,
 * and turns the thread's death (an uncaught error, an exit, a terminate) into the rejection of everything it held.
 * An idle thread does not keep the process alive.
 */
export class EmbedderThread {
  /** threads of this process not yet ended (counted down when a thread's "close" event says it has) */
  static running = 0;
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve: (v: Float32Array[]) => void; reject: (e: Error) => void }>();
  private nextId = 0;
  private loading: { resolve: (m: LoadedModel) => void; reject: (e: Error) => void } | null = null;
  dead: Error | null = null;

  private constructor(entry: string, private readonly onDeath: (t: EmbedderThread) => void) {
    this.worker = new Worker(entry);
    this.worker.onmessage = (e: MessageEvent<FromEmbedderThread>) => this.receive(e.data);
    this.worker.onerror = (e) => this.die(new EmbedderThreadError(`The embedding thread failed: ${e.message}`));
    EmbedderThread.running++;
    this.worker.addEventListener("close", () => {
      EmbedderThread.running--;
      this.die(new EmbedderThreadError("The embedding thread exited"));
    });
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
      thread.terminate();
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

  /** Ends the thread now; what it held fails. */
  terminate(): void {
    this.die(new EmbedderThreadError("The embedding thread was stopped"));
  }

  private receive(m: FromEmbedderThread): void {
    if (m.type === "loaded") this.loading?.resolve(m);
    else if (m.type === "failed" && m.id === null) this.loading?.reject(new Error(m.message));
    else if (m.id !== null) {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (this.pending.size === 0) this.worker.unref();
      if (m.type === "vectors") p.resolve(m.vectors);
      else p.reject(new Error(m.message));
    }
  }

  private die(e: Error): void {
    if (this.dead) return;
    this.dead = e;
    this.worker.terminate();
    this.loading?.reject(e);
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
    this.onDeath(this);
  }

  private post(m: ToEmbedderThread): void {
    this.worker.postMessage(m);
  }
}
