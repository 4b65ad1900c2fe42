import type { Token } from "node-llama-cpp";
import { commonPrefixLength } from "../commonPrefix.ts";
import type { PoolSlot } from "../SequencePool.ts";

interface Pending {
  tokens: readonly Token[];
  /** Already asked whether the store has it (a saved prompt is not warmed again). */
  checked: boolean;
  /** Tokens of it a saved part holds (WarmProgress): a warm-up goes on from there. */
  warmed: number;
}

export interface WarmPick<S> {
  slot: PoolSlot<S>;
  key: string;
  tokens: readonly Token[];
}

/**
 * Minds' prompts waiting to be warmed, and which to warm next on which idle sequence.
 *
 * The next is the prompt an idle sequence already holds the most of: a turn leaves its mind's prompt in
 * its sequence, so a prompt a player has just used is saved from there at almost no cost before any other
 * warm-up takes that sequence and evaluates something else over it. With one sequence (or all of them
 * taken by turns) a first-come order threw that prompt away and the mind's next newcomer started cold.
 * A prompt whose earlier warm-up was interrupted counts the part it kept (restored first, it costs little).
 * Ties go to the prompt a turn asked for, then to the oldest; on the sequence side to an unowned
 * sequence, then to the least recently used.
 */
export class WarmQueue {
  private readonly entries = new Map<string, Pending>();

  get size(): number {
    return this.entries.size;
  }

  /** Queues a prompt; `first`: a turn is using this mind now, it goes ahead of the prompts warmed on speculation. */
  add(key: string, tokens: readonly Token[], first = false): void {
    const queued = this.entries.get(key);
    if (queued && !first) return;
    const entry = queued ?? { tokens, checked: false, warmed: 0 };
    if (!first) {
      this.entries.set(key, entry);
      return;
    }
    const rest = [...this.entries].filter(([k]) => k !== key);
    this.entries.clear();
    this.entries.set(key, entry);
    for (const [k, e] of rest) this.entries.set(k, e);
  }

  /** What a kept part of this prompt holds. */
  warmed(key: string, tokens: number): void {
    const e = this.entries.get(key);
    if (e) e.warmed = tokens;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  /** Prompts not yet looked up in the store (each is looked up once), marked as looked up. */
  takeUnchecked(): [string, readonly Token[]][] {
    const out: [string, readonly Token[]][] = [];
    for (const [key, e] of this.entries) {
      if (e.checked) continue;
      e.checked = true;
      out.push([key, e.tokens]);
    }
    return out;
  }

  /** The (sequence, prompt) pair to warm next among the sequences `usable` accepts; null when none is. */
  next<S>(slots: readonly PoolSlot<S>[], usable: (slot: PoolSlot<S>) => boolean, held: (slot: PoolSlot<S>) => readonly number[]): WarmPick<S> | null {
    let best: (WarmPick<S> & { covered: number }) | null = null;
    const rank = (s: PoolSlot<S>) => (s.key === null ? -1 : s.lastUsed);
    for (const slot of slots) {
      if (!usable(slot)) continue;
      const tokens = held(slot);
      for (const [key, e] of this.entries) {
        const covered = Math.max(commonPrefixLength(tokens, e.tokens), e.warmed);
        const better = !best || covered > best.covered || (covered === best.covered && slot !== best.slot && rank(slot) < rank(best.slot));
        if (better) best = { slot, key, tokens: e.tokens, covered };
      }
    }
    return best && { slot: best.slot, key: best.key, tokens: best.tokens };
  }
}
