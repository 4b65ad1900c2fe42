/** Snapshot activity since the engine loaded (/metrics reads them). */
export class KvCounters {
  /** Turns of a conversation not resident in a sequence (each looked for a snapshot). */
  lookups = 0;
  /** Of those, turns that started from a restored snapshot (conversation or mind prefix). */
  restores = 0;
  prefixRestores = 0;
  prefixRestoredTokens = 0;
  /** Of those, from another prefix sharing the prompt's start (the mind's own was still warming). */
  nearestPrefixRestores = 0;
  restoredTokens = 0;
  restoredBytes = 0;
  restoreMsTotal = 0;
  restoreFailures = 0;
  /** A snapshot existed but evaluating its tokens was estimated cheaper (tiny prompts). */
  skippedCheaper = 0;
  saves = 0;
  /** Saves on the request path: the evicted conversation's background save had not happened yet. */
  evictionSaves = 0;
  prefixSaves = 0;
  /** Prompt tokens background warm-ups evaluated (mind prefixes). */
  prefixWarmedTokens = 0;
  /** Times a warm-up stood aside for a turn (gave up its sequence until turns were done). */
  prefixWarmYields = 0;
  saveFailures = 0;
  savedBytes = 0;
  /** From a save's start until its state is written (packing included). */
  saveMsTotal = 0;
  /** Time saves held a sequence (taking its state): what a turn waiting for that sequence waits. */
  saveHoldMsTotal = 0;
  /** Saves written while holding the sequence: too many taken states were already waiting to be written. */
  savesInPlace = 0;
}

/**
 * When is a restore worth it? Restoring costs about its bytes ÷ the disk-and-load speed; evaluating
 * costs its tokens ÷ the prompt speed. Both speeds are running averages of what this process saw,
 * starting from what a 2-core CPU does with a 0.5B model (~300 prompt tokens/s; ~200 MB/s restore).
 */
export class RestoreCostModel {
  /** bytes per ms */
  restoreSpeed = 200_000;
  /** prompt tokens per ms */
  evalSpeed = 0.3;
  /** fixed cost of a restore (open, checksum, lock), ms */
  restoreOverheadMs = 2;

  restoreMs(bytes: number): number {
    return this.restoreOverheadMs + bytes / this.restoreSpeed;
  }

  evalMs(tokens: number): number {
    return tokens / this.evalSpeed;
  }

  observeRestore(bytes: number, ms: number): void {
    if (ms <= 0 || bytes < 64 * 1024) return; // tiny restores are all overhead
    this.restoreSpeed = ewma(this.restoreSpeed, bytes / ms);
  }

  observeEval(tokens: number, ms: number): void {
    if (ms <= 0 || tokens < 32) return;
    this.evalSpeed = ewma(this.evalSpeed, tokens / ms);
  }
}

function ewma(old: number, sample: number): number {
  return old * 0.7 + sample * 0.3;
}
