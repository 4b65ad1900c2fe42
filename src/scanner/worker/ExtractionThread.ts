import type { Skipped } from "../extract/index.ts";
import type { StorableCandidate } from "./storableCandidate.ts";
import type { ExtractorSetup } from "./FileExtractor.ts";
import type { FromThread, ToThread } from "./threadMessages.ts";
import { endExtractionThread } from "./endThread.ts";
import { returnExtractionThread, takeExtractionThread } from "./idleThread.ts";

/**
 * A thread that extracted more than this in one scan is ended, not kept: its heap grew with the
 * archive, and against a scan that long its start is nothing.
 */
const KEEP_AFTER_BYTES = 64 * 1024 * 1024;

/** What the main thread does with the extraction thread's output, in the order the thread produced it. */
export interface ThreadSink {
  batch(candidates: StorableCandidate[], skipped: Skipped[]): void;
  /** A file `send` handed over is fully extracted (its batches came before); `size` is its byte count. */
  fileDone(relativePath: string, size: number): void;
}

/** A failure inside the extraction thread (an extractor bug): the scan's attempt fails as if it had thrown here. */
export class ExtractionThreadError extends Error {}

/**
 * The main thread's handle on one scan's extraction thread (extractionThreadEntry.ts).
 * Files are transferred, not copied, in archive order; `inFlightBytes` counts
 * what the thread has not finished, so the reader can wait (`drainTo`) instead
 * of queueing a whole archive in memory. One thread per scan at a time: `close`
 * hands it back for the next scan when the scan ended cleanly (idleThread.ts),
 * and otherwise ends it (endThread.ts: the files it still holds skipped, then a
 * close message, terminated only if it does not answer in time).
 */
export class ExtractionThread {
  private readonly worker: Worker;
  /** Files handed over and not finished, by id. */
  private readonly inThread = new Map<number, { relativePath: string; size: number }>();
  private nextId = 0;
  private inFlight = 0;
  private sentBytes = 0;
  private failure: Error | null = null;
  private ended = false;
  private closed = false;
  private readonly signal?: AbortSignal;
  private readonly onAbort: () => void;
  private wake: (() => void) | null = null;
  /** set once the scan no longer wants what it queued (threadMessages.ts) */
  private readonly stop = new Int32Array(new SharedArrayBuffer(4));

  constructor(setup: ExtractorSetup, private readonly sink: ThreadSink, signal?: AbortSignal) {
    // A shutdown stops waiting at once (the job goes back to the queue), even while the thread works.
    this.onAbort = () => this.fail(signal!.reason instanceof Error ? signal!.reason : new Error("aborted"));
    this.signal = signal;
    signal?.addEventListener("abort", this.onAbort, { once: true });
    this.worker = takeExtractionThread();
    this.worker.onmessage = (e: MessageEvent<FromThread>) => this.receive(e.data);
    this.worker.onerror = (e) => this.fail(new ExtractionThreadError(`The extraction thread failed: ${e.message}`));
    this.post({ type: "setup", setup, stop: this.stop });
  }

  get inFlightBytes(): number {
    return this.inFlight;
  }

  /** Hands a file to the thread (its bytes move there: the caller must not touch them again). */
  send(relativePath: string, bytes: Uint8Array): void {
    this.check();
    const id = this.nextId++;
    // Transferable only as a whole buffer: a view into a larger one is copied first.
    const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
    this.inThread.set(id, { relativePath, size: own.byteLength });
    this.inFlight += own.byteLength;
    this.sentBytes += own.byteLength;
    this.post({ type: "file", id, relativePath, bytes: own }, [own.buffer as ArrayBuffer]);
  }

  /** Resolves once at most `limit` bytes are still being extracted (rejects if the thread failed). */
  async drainTo(limit: number): Promise<void> {
    while (this.inFlight > limit) await this.next();
    this.check();
  }

  /** Tells the thread the archive ended and waits for everything it still holds. */
  async end(): Promise<void> {
    this.post({ type: "end" });
    while (!this.ended) await this.next();
    this.check();
  }

  /**
   * Done with the thread (idempotent): kept for the next scan after a clean end, else ended (endThread.ts).
   * Resolves once it is kept or has ended (bounded by END_TIMEOUT_MS).
   */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    // The server's shutdown signal outlives every scan: the listener must not keep this scan alive.
    this.signal?.removeEventListener("abort", this.onAbort);
    // Only a thread that answered "ended" has nothing of this scan left in its queue.
    if (this.ended && !this.failure && this.sentBytes <= KEEP_AFTER_BYTES) {
      returnExtractionThread(this.worker);
      return Promise.resolve();
    }
    Atomics.store(this.stop, 0, 1);
    return endExtractionThread(this.worker);
  }

  private post(m: ToThread, transfer: ArrayBuffer[] = []): void {
    this.worker.postMessage(m, transfer);
  }

  private receive(m: FromThread): void {
    if (this.failure) return;
    try {
      if (m.type === "batch") this.sink.batch(m.candidates, m.skipped);
      else if (m.type === "done") {
        const f = this.inThread.get(m.id)!;
        this.inThread.delete(m.id);
        this.inFlight -= f.size;
        this.sink.fileDone(f.relativePath, f.size);
      } else if (m.type === "ended") this.ended = true;
      else if (m.type === "failed") this.fail(new ExtractionThreadError(m.stack ?? m.message));
    } catch (err) {
      // The sink's own failure (a database error storing a batch) ends the scan the same way.
      this.fail(err instanceof Error ? err : new Error(String(err)));
    }
    this.wake?.();
  }

  private fail(err: Error): void {
    this.failure ??= err;
    this.wake?.();
  }

  private check(): void {
    if (this.failure) throw this.failure;
  }

  private next(): Promise<void> {
    this.check();
    return new Promise((resolve) => (this.wake = () => ((this.wake = null), resolve())));
  }
}
