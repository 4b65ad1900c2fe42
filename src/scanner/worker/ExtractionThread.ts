import type { Skipped } from "../extract/index.ts";
import type { StorableCandidate } from "./storableCandidate.ts";
import type { ExtractorSetup } from "./FileExtractor.ts";
import type { FromThread, ToThread } from "./threadMessages.ts";

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
 * of queueing a whole archive in memory. One thread per scan, terminated by
 * `close`: its heap goes with it.
 */
export class ExtractionThread {
  private readonly worker: Worker;
  /** Files handed over and not finished, by id. */
  private readonly inThread = new Map<number, { relativePath: string; size: number }>();
  private nextId = 0;
  private inFlight = 0;
  private failure: Error | null = null;
  private ended = false;
  private closed = false;
  private readonly signal?: AbortSignal;
  private readonly onAbort: () => void;
  private wake: (() => void) | null = null;

  constructor(setup: ExtractorSetup, private readonly sink: ThreadSink, signal?: AbortSignal) {
    // A shutdown stops waiting at once (the job goes back to the queue), even while the thread works.
    this.onAbort = () => this.fail(signal!.reason instanceof Error ? signal!.reason : new Error("aborted"));
    this.signal = signal;
    signal?.addEventListener("abort", this.onAbort, { once: true });
    this.worker = new Worker(threadEntryUrl());
    this.worker.onmessage = (e: MessageEvent<FromThread>) => this.receive(e.data);
    this.worker.onerror = (e) => this.fail(new ExtractionThreadError(`The extraction thread failed: ${e.message}`));
    this.post({ type: "setup", setup });
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

  /** Ends the thread (idempotent); its heap is freed with it. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    // The server's shutdown signal outlives every scan: the listener must not keep this scan alive.
    this.signal?.removeEventListener("abort", this.onAbort);
    this.worker.terminate();
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
      else this.fail(new ExtractionThreadError(m.stack ?? m.message));
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

/**
 * The thread's code: beside this file when run from source. In the executable every module's
 * import.meta.url is the bundle's root (file:///$bunfs/root/<name>, B:/~BUN/root on Windows) and
 * the build embeds the entry under its path from src/, the entry points' common folder
 * (scripts/build/buildExecutable.ts; test/exe/e2e.test.ts runs a scan inside the executable).
 */
function threadEntryUrl(): string {
  const embedded = import.meta.url.includes("/$bunfs/") || import.meta.url.includes("~BUN");
  return new URL(embedded ? "./scanner/worker/extractionThreadEntry.ts" : "./extractionThreadEntry.ts", import.meta.url).href;
}
