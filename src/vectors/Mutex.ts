/**
 * Serialises async sections. LanceDB commits are optimistic; two writes racing
 * on one table from the same process would retry or conflict, so every write to
 * a table runs under that table's Mutex.
 */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn);
    // The chain continues whether fn succeeds or fails; the caller sees its own outcome.
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  /** Resolves once everything queued so far has finished. */
  idle(): Promise<void> {
    return this.run(async () => undefined);
  }
}

/**
 * Many readers or one writer, writers first (a steady stream of searches cannot
 * starve a write). Used so that the two queries of one hybrid search see the
 * same table version: a commit cannot land between them.
 */
export class ReadWriteLock {
  private readers = 0;
  private writing = false;
  private waitingWriters: (() => void)[] = [];
  private waitingReaders: (() => void)[] = [];

  async read<T>(fn: () => Promise<T>): Promise<T> {
    if (this.writing || this.waitingWriters.length) await new Promise<void>((r) => this.waitingReaders.push(r));
    else this.readers++;
    try {
      return await fn();
    } finally {
      this.readers--;
      this.wake();
    }
  }

  async write<T>(fn: () => Promise<T>): Promise<T> {
    if (this.writing || this.readers) await new Promise<void>((r) => this.waitingWriters.push(r));
    else this.writing = true;
    try {
      return await fn();
    } finally {
      this.writing = false;
      this.wake();
    }
  }

  /** Hands the lock on: to one waiting writer if nobody holds it, else to all waiting readers if no writer waits. */
  private wake(): void {
    if (this.writing || this.readers) return;
    const w = this.waitingWriters.shift();
    if (w) {
      this.writing = true;
      w();
      return;
    }
    const rs = this.waitingReaders.splice(0);
    this.readers += rs.length;
    for (const r of rs) r();
  }
}
