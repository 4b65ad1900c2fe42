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
