import type { Token } from "node-llama-cpp";
import { commonPrefixLength } from "../commonPrefix.ts";
import type { PoolSlot, SequencePool } from "../SequencePool.ts";
import type { SnapshotMeta } from "./snapshotFile.ts";
import type { SnapshotStore } from "./SnapshotStore.ts";
import { KvCounters, RestoreCostModel } from "./kvCounters.ts";
import { TurnGate } from "./TurnGate.ts";
import type { WarmSlot } from "./WarmSlot.ts";
import { WarmQueue } from "./WarmQueue.ts";
import { KnownPrefixes } from "./KnownPrefixes.ts";
import { partKey, restoreSnapshot, WarmProgress } from "./WarmProgress.ts";
import { ConversationSaves } from "./ConversationSaves.ts";
import { SaveWriter, type WriterOptions } from "./SaveWriter.ts";

export type { WarmSlot } from "./WarmSlot.ts";

export interface WarmStartOptions {
  /** "auto": restore only when it beats evaluating; "always": whenever it saves tokens (tests). */
  restore: "auto" | "always";
  /** Fewest tokens a restore must save (a tiny prompt is cheaper to evaluate). */
  minGainTokens: number;
  /**
   * Prompt tokens a background warm-up evaluates at a time before it looks for turns again: the most a
   * turn that arrives meanwhile can wait for it (one decode of this many tokens).
   */
  chunkTokens?: number;
  /** How conversations' saves are written off their sequence (SaveWriter). */
  writer?: WriterOptions;
}

/** Default step of a background warm-up: ~0.2 s of a 0.5B model's prompt processing on 2 cores. */
const WARM_CHUNK_TOKENS = 64;

export interface WarmStartResult {
  /** Prompt tokens the sequence held before evaluation (its own cache or a restored snapshot). */
  reusedTokens: number;
  restoreMs: number;
  saveMs: number;
  source: "resident" | "conversation" | "prefix" | "none";
}

/**
 * Conversation and mind-prefix KV snapshots around the engine's sequences:
 * - a conversation's state is saved in the background after each turn (so evicting it later costs
 *   nothing), on eviction if still unsaved, and at shutdown;
 * - a conversation that is not resident is restored from its snapshot, or from its mind's prefix
 *   snapshot, into the sequence it was given, when that beats evaluating the same tokens;
 * - a mind's static prompt is evaluated once on an idle sequence and saved as a prefix snapshot, in small
 *   steps, standing aside whenever a turn is in flight (TurnGate): a turn never waits for a warm-up. A
 *   newcomer whose mind's prompt is still warming starts from the nearest prefix snapshot this engine
 *   knows (the mind's previous prompt shares its system text) or cold, whichever is cheaper.
 */
export class WarmStarts<S extends WarmSlot = WarmSlot> {
  readonly counters = new KvCounters();
  private readonly cost = new RestoreCostModel();
  private readonly background = new Set<Promise<unknown>>();
  /** Saves of the conversations turns just left (a warm-up waits for them, not for a timer). */
  private readonly turnSaves = new Set<Promise<unknown>>();
  /** Minds' prompts waiting for (or in) a warm-up; one worker warms them, one step at a time. */
  private readonly queue = new WarmQueue();
  private warming = false;
  private readonly known: KnownPrefixes;
  private readonly progress: WarmProgress;
  private readonly saves: ConversationSaves;
  private readonly writer: SaveWriter;
  private closed = false;
  private wakeOnClose: () => void = () => {};
  private readonly closing = new Promise<void>((resolve) => (this.wakeOnClose = resolve));

  constructor(
    private readonly store: SnapshotStore,
    private readonly pool: SequencePool<S>,
    private readonly options: WarmStartOptions,
    private readonly turns: TurnGate = new TurnGate(),
  ) {
    this.known = new KnownPrefixes(store, options.minGainTokens);
    this.writer = new SaveWriter(store, options.writer);
    this.progress = new WarmProgress(store, options.minGainTokens, this.writer);
    this.saves = new ConversationSaves(store, this.counters, this.known, this.writer);
  }

  get estimates(): RestoreCostModel {
    return this.cost;
  }

  get fingerprint(): string {
    return this.store.fingerprint;
  }

  storeStats() {
    return this.store.stats();
  }

  /**
   * Before a turn, on the request path: saves an evicted conversation still unsaved, then restores
   * this conversation's snapshot (or its mind's prefix) when that beats evaluating.
   */
  async prepare(slot: PoolSlot<S>, key: string, prompt: readonly Token[], prefix: { key: string; tokens: readonly Token[] } | null): Promise<WarmStartResult> {
    const w = slot.value;
    this.saves.begin(key);
    const wasHolding = w.holds === key;
    const keeping = performance.now();
    await this.keepPart(w, prompt);
    let saveMs = performance.now() - keeping;
    if (w.holds !== key) {
      if (w.holds !== null && this.dirty(w)) {
        const t0 = performance.now();
        await this.save(w, w.holds);
        saveMs += performance.now() - t0;
        this.counters.evictionSaves++;
      }
      w.holds = key;
      w.saved = w.saved?.key === key ? w.saved : null;
    }
    const usable = (tokens: readonly number[]) => Math.min(commonPrefixLength(tokens, prompt), prompt.length - 1);
    const own = usable(w.sequence.contextTokens);
    const resident = wasHolding && own > 0;
    // A sequence that held another conversation of this mind, or only the mind's warmed prompt.
    const inherited = (): WarmStartResult => {
      if (resident || own < this.options.minGainTokens) return { reusedTokens: own, restoreMs: 0, saveMs, source: resident ? "resident" : "none" };
      this.counters.prefixRestores++;
      this.counters.prefixRestoredTokens += own;
      return { reusedTokens: own, restoreMs: 0, saveMs, source: "prefix" };
    };
    // A resident conversation (its own cache) or a prompt the sequence already holds: nothing to look up.
    if (resident || own >= prompt.length - 1) return inherited();

    const candidates: SnapshotMeta[] = [];
    const conversation = await this.lookup("conversation", key);
    if (conversation) candidates.push(conversation);
    if (prefix) {
      const mind = await this.lookup("prefix", prefix.key);
      if (mind) {
        candidates.push(mind);
        this.known.remember(mind);
      } else {
        this.warmPrefix(prefix.key, prefix.tokens, true);
        // Not waiting for that warm-up (it stands aside for turns): the part it warmed, or the nearest prefix snapshot, may cover some.
        for (const near of [await this.progress.find(prefix.key, prefix.tokens), await this.known.nearest(prompt, own)]) if (near) candidates.push(near);
      }
    }
    this.counters.lookups++;
    let best: { meta: SnapshotMeta; gain: number; reach: number } | null = null;
    for (const meta of candidates) {
      const reach = usable(meta.tokens);
      const gain = reach - own;
      if (!best || gain > best.gain) best = { meta, gain, reach };
    }
    const worth =
      best &&
      best.gain >= this.options.minGainTokens &&
      (this.options.restore === "always" || this.cost.restoreMs(best.meta.stateBytes) < this.cost.evalMs(best.gain));
    if (!best || !worth) {
      if (best && best.gain > 0) this.counters.skippedCheaper++;
      return inherited();
    }
    const t0 = performance.now();
    const ok = await this.restore(w, best.meta);
    const restoreMs = performance.now() - t0;
    if (!ok) return { reusedTokens: usable(w.sequence.contextTokens), restoreMs, saveMs, source: "none" };
    this.cost.observeRestore(best.meta.stateBytes, restoreMs);
    this.counters.restores++;
    this.counters.restoredTokens += best.reach;
    this.counters.restoredBytes += best.meta.stateBytes;
    this.counters.restoreMsTotal += restoreMs;
    if (best.meta.kind === "prefix") {
      this.counters.prefixRestores++;
      this.counters.prefixRestoredTokens += best.reach;
      if (prefix && best.meta.key !== prefix.key && best.meta.key !== partKey(prefix.key)) this.counters.nearestPrefixRestores++;
    }
    if (best.meta.kind === "conversation") w.saved = { key, tokens: best.meta.tokens };
    return { reusedTokens: best.reach, restoreMs, saveMs, source: best.meta.kind };
  }

  /** After a turn (the slot is released): save its state in the background. */
  afterTurn(slot: PoolSlot<S>, evaluatedTokens: number, evalMs: number): void {
    this.cost.observeEval(evaluatedTokens, evalMs);
    const saving = this.spawn(async () => {
      await Promise.resolve();
      const w = slot.value;
      if (this.closed || w.holds === null || !this.dirty(w) || !this.pool.pin(slot)) return;
      try {
        if (w.holds !== null && this.dirty(w)) await this.save(w, w.holds);
      } finally {
        this.pool.unpin(slot);
      }
    });
    this.turnSaves.add(saving);
    void saving.finally(() => this.turnSaves.delete(saving));
  }

  /**
   * Evaluates a mind's static prompt on an idle sequence and saves it as a prefix snapshot, in the
   * background, one at a time (WarmQueue picks which: first the prompt a sequence already holds, as a turn
   * left it); a prompt already saved by this model is left as it is. `first`: a turn asked (a player uses
   * this mind now). Warm-ups only start while no turn is in flight and stop between steps when one comes
   * (giving up the sequence: a newcomer of that mind that gets it reuses what was evaluated), then resume
   * once turns are done.
   */
  warmPrefix(key: string, tokens: readonly Token[], first = false): void {
    if (this.closed || !this.store.writable || tokens.length < this.options.minGainTokens) return;
    this.queue.add(key, tokens, first);
    this.startWarming();
  }

  private startWarming(): void {
    if (this.warming || this.closed || this.queue.size === 0) return;
    this.warming = true;
    this.spawn(async () => {
      try {
        await this.warmQueued();
      } catch {
        this.queue.clear(); // a store that fails now fails for every prompt: the next newcomer asks again
      } finally {
        this.warming = false;
      }
      this.startWarming(); // a prompt queued while the worker was finishing
    });
  }

  /** The warm-up worker: until the queue is empty, or no sequence came free for a while (the next newcomer of a mind asks again). */
  private async warmQueued(): Promise<void> {
    for (let noSequence = 0; this.queue.size > 0 && !this.closed; ) {
      for (const [key, tokens] of this.queue.takeUnchecked()) {
        const saved = await this.lookup("prefix", key);
        if (saved && saved.tokens.length === tokens.length && commonPrefixLength(saved.tokens, tokens) === tokens.length) {
          this.known.remember(saved);
          this.queue.delete(key);
          this.progress.drop(key);
        } else this.queue.warmed(key, (await this.progress.find(key, tokens))?.tokens.length ?? 0); // a part kept before a restart
      }
      if (this.queue.size === 0) return;
      await this.turnsDone();
      if (this.closed) return;
      const pick = this.queue.next(this.pool.slotsView(), (s) => !s.busy && !this.dirty(s.value), (s) => s.value.sequence.contextTokens);
      if (!pick || !this.pool.pin(pick.slot)) {
        // A sequence a turn has just left is being saved: wait for that, not for a timer that may outlast the
        // server's next idle moment (a back-off past the gap between turns never found a sequence, and gave up).
        if (this.turnSaves.size) {
          await Promise.race([Promise.allSettled([...this.turnSaves]), this.closing]);
          continue;
        }
        if (++noSequence >= 20) return this.queue.clear();
        await Promise.race([Bun.sleep(Math.min(500, 100 * noSequence)), this.closing]); // short: shutdown waits for this loop
        continue;
      }
      noSequence = 0;
      let finished = false;
      try {
        finished = await this.evaluatePrefix(pick.slot, pick.key, pick.tokens);
      } finally {
        this.pool.unpin(pick.slot);
      }
      if (finished) this.queue.delete(pick.key);
      else this.counters.prefixWarmYields++;
    }
  }

  /** Erases a conversation's state everywhere: resident sequences, pending saves, snapshots on disk. */
  forget(match: (key: string) => boolean): number {
    const held: string[] = [];
    for (const slot of this.pool.slotsView()) {
      const w = slot.value;
      if (w.holds === null || !match(w.holds)) continue;
      held.push(w.holds);
      if (!slot.busy) {
        w.holds = null;
        w.saved = null;
        this.pool.disown(slot);
        void w.sequence.clearHistory().catch(() => {});
      }
    }
    this.saves.forget(match, held);
    return this.store.deleteWhere((h) => h.kind === "conversation" && match(h.key));
  }

  /** Resolves when no background save or prefix evaluation is running (tests, benches). */
  async idle(): Promise<void> {
    while (this.background.size || this.saves.busy || this.writer.pendingCount) {
      await Promise.allSettled([...this.background]);
      await this.saves.settle();
      await this.writer.settle();
    }
  }

  /** Shutdown: background work finishes, then every unsaved conversation is saved. */
  async close(): Promise<void> {
    this.closed = true;
    this.wakeOnClose();
    while (this.background.size) await Promise.allSettled([...this.background]);
    for (const slot of this.pool.slotsView()) {
      const w = slot.value;
      if (w.holds !== null && this.dirty(w)) await this.save(w, w.holds);
    }
    await this.saves.settle();
    await this.writer.settle();
  }

  private dirty(w: WarmSlot): boolean {
    if (w.holds === null || w.sequence.contextTokens.length === 0) return false;
    if (w.saved?.key !== w.holds) return true;
    const now = w.sequence.contextTokens;
    return now.length !== w.saved.tokens.length || commonPrefixLength(now, w.saved.tokens) !== now.length;
  }

  /** A snapshot once the saves of its key taken so far are written (a state taken is never looked past). */
  private async lookup(kind: "conversation" | "prefix", key: string): Promise<SnapshotMeta | null> {
    await this.writer.settled(kind, key);
    return this.store.lookup(kind, key);
  }

  /** Returns once the sequence is free again: the state is written off it (ConversationSaves). */
  private save(w: WarmSlot, key: string): Promise<void> {
    return this.saves.save(w, key);
  }

  private async restore(w: WarmSlot, meta: SnapshotMeta): Promise<boolean> {
    if (await restoreSnapshot(this.store, w.sequence, meta)) return true;
    this.counters.restoreFailures++;
    return false;
  }

  /**
   * Evaluates the prompt on this sequence a step at a time and saves it; false when it stopped for a
   * turn (or shutdown) first. The sequence then holds the part evaluated so far, owned by nobody, and
   * that part is saved (WarmProgress) for the next idle moment to go on from when a turn overwrites it.
   */
  private async evaluatePrefix(slot: PoolSlot<S>, key: string, tokens: readonly Token[]): Promise<boolean> {
    const w = slot.value;
    const seq = w.sequence;
    if (w.holds !== null && this.dirty(w)) await this.save(w, w.holds);
    // From here on the sequence holds (part of) the mind's prompt only: the next newcomer gets it as it is.
    w.holds = null;
    w.saved = null;
    this.pool.disown(slot);
    await this.keepPart(w, tokens);
    const part = await this.progress.find(key, tokens);
    const saved = part?.tokens.length ?? 0;
    if (part && saved >= commonPrefixLength(seq.contextTokens, tokens) + this.options.minGainTokens) await this.restore(w, part);
    const keep = commonPrefixLength(seq.contextTokens, tokens);
    if (keep < seq.contextTokens.length) await seq.eraseContextTokenRanges([{ start: keep, end: seq.contextTokens.length }]);
    const step = Math.max(1, this.options.chunkTokens ?? WARM_CHUNK_TOKENS);
    for (let at = keep; at < tokens.length; ) {
      if (this.closed || this.turns.busy) {
        // Not saved here: the turn waiting for a sequence may take another, or go on from this part (the same mind).
        w.warming = { key, tokens, saved };
        return false;
      }
      const end = Math.min(tokens.length, at + step);
      const t0 = performance.now();
      await seq.evaluateWithoutGeneratingNewTokens(tokens.slice(at, end) as Token[]);
      this.cost.observeEval(end - at, performance.now() - t0);
      this.counters.prefixWarmedTokens += end - at;
      at = end;
      // A prompt the sequence cannot hold whole (the context shifted it): nothing worth saving.
      if (seq.contextTokens.length !== end) return true;
    }
    const write = async (path: string) => {
      await seq.saveStateToFile(path);
    };
    // Taken here, packed and written off the sequence: a turn that comes meanwhile takes the sequence at once.
    const taken = await this.writer.save("prefix", key, [...seq.contextTokens], write, async () => null);
    if (taken)
      this.spawn(async () => {
        const meta = await taken.done;
        if (!meta) return;
        this.progress.drop(key);
        this.counters.prefixSaves++;
        this.counters.savedBytes += meta.stateBytes;
        this.known.remember(meta);
      });
    return true;
  }

  /** Before a turn or another warm-up overwrites a warm-up's part the sequence holds: saves it, unless `next` starts with it. */
  private async keepPart(w: WarmSlot, next: readonly Token[]): Promise<void> {
    const part = w.warming;
    if (!part) return;
    w.warming = undefined;
    const held = w.sequence.contextTokens;
    if (commonPrefixLength(next, held) < held.length) this.queue.warmed(part.key, await this.progress.keep(part.key, part.tokens, w.sequence, part.saved));
  }

  /** Waits while any turn is in flight (or until shutdown). */
  private async turnsDone(): Promise<void> {
    while (this.turns.busy && !this.closed) await Promise.race([this.turns.quiet(), this.closing]);
  }

  private spawn(task: () => Promise<void>): Promise<void> {
    const p = task().catch(() => {});
    this.background.add(p);
    void p.finally(() => this.background.delete(p));
    return p;
  }
}
