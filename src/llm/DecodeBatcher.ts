import type { BatchingOptions, LlamaContext, LlamaContextSequence } from "node-llama-cpp";
import { sequenceIdOf, wrapDecodeTokens, type DecodeTokens } from "./internals.ts";

/** The item shapes node-llama-cpp passes to a custom batch prioritization strategy. */
type BatchItem = Parameters<Extract<BatchingOptions["itemPrioritizationStrategy"], Function>>[0]["items"][number];
type PrioritizedBatchItem = ReturnType<Extract<BatchingOptions["itemPrioritizationStrategy"], Function>>[number];

/**
 * Lock-step batching relies on two node-llama-cpp internals (internals.ts): every decode of every
 * sequence funnels through `LlamaContext._decodeTokens`, and a sequence knows its id. `attach`
 * degrades to plain node-llama-cpp scheduling if either is gone.
 */
type DecodeRequest = Parameters<DecodeTokens>[0];

interface Held { sequenceId: number; release: () => void }

export interface DecodeBatcherOptions {
  /** Prompt tokens of one sequence per decode while other sequences are generating. */
  promptChunkTokens: number;
  /** Longest wait for the other active sequences before dispatching anyway. */
  maxWaitMs: number;
}

/**
 * Makes concurrent generations share llama.cpp decode calls.
 *
 * node-llama-cpp dispatches whatever is queued on the next event-loop turn, so generations on
 * different sequences drift out of phase and mostly decode one token per call. The batcher
 * holds each active sequence's next decode until every active sequence has one ready (or
 * `maxWaitMs` passed), then releases them together so they land in one batch: one decode
 * call carries a token of each. A sequence busy evaluating a prompt is not waited for, and
 * the prioritization strategy feeds its prompt in chunks so the others keep a steady pace.
 * It also counts decode calls (one strategy call per decoded batch) for `stats()`.
 */
export class DecodeBatcher {
  decodeCalls = 0;
  batchedTokens = 0;

  private readonly options: DecodeBatcherOptions;
  /** Sequences in a generation that have issued their first decode. */
  private readonly participants = new Set<number>();
  /** Sequences registered by `begin` whose first decode has not arrived yet. */
  private readonly registered = new Set<number>();
  /** Sequences with a released decode queued or running in llama.cpp: true for a prompt (multi-token). */
  private readonly inFlight = new Map<number, boolean>();
  private held: Held[] = [];
  /** Which sequence queued a token list (node-llama-cpp's batch items carry the list, not the sequence). */
  private readonly owners = new WeakMap<readonly number[], number>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private attached = false;

  constructor(options: DecodeBatcherOptions) {
    this.options = options;
  }

  /** Batching options for `model.createContext`. */
  get batchingOptions(): BatchingOptions {
    return {
      dispatchSchedule: "nextCycle",
      itemPrioritizationStrategy: (o) => this.prioritize(o),
    };
  }

  /** Installs the gate on the context; returns false if node-llama-cpp's internals changed. */
  attach(context: LlamaContext): boolean {
    this.attached = wrapDecodeTokens(context, (decode) => (request, ...rest) => this.gate(request, () => decode(request, ...rest)));
    return this.attached;
  }

  /** A generation starts on this sequence: its decodes take part in lock-step batching. */
  begin(sequence: LlamaContextSequence): void {
    const id = sequenceIdOf(sequence);
    if (id != null) this.registered.add(id);
  }

  /** The generation on this sequence ended: nobody waits for it any more. */
  end(sequence: LlamaContextSequence): void {
    const id = sequenceIdOf(sequence);
    if (id == null) return;
    this.registered.delete(id);
    this.participants.delete(id);
    this.check();
  }

  private gate(request: DecodeRequest, run: () => Promise<unknown>): Promise<unknown> {
    const id = request.sequenceId;
    this.owners.set(request.tokens, id);
    if (!this.attached || (!this.registered.has(id) && !this.participants.has(id))) return run();
    this.registered.delete(id);
    this.participants.add(id);
    const isPrompt = request.tokens.length > 1;
    return new Promise((resolve, reject) => {
      this.held.push({
        sequenceId: id,
        release: () => {
          this.inFlight.set(id, isPrompt);
          run().then(resolve, reject).finally(() => {
            this.inFlight.delete(id);
            this.check();
          });
        },
      });
      this.check();
    });
  }

  /**
   * Releases the held decodes once every participant has one ready. Not waited for: a sequence
   * evaluating a prompt. Waited for without a time limit: one whose decode is still running
   * (it comes back right after, and waiting for it puts the phases back in step). Waited for at
   * most `maxWaitMs`: one that got its token and has not asked again yet.
   */
  private check(): void {
    if (this.held.length === 0) return;
    const held = new Set(this.held.map((h) => h.sequenceId));
    let missing = 0;
    let missingRunning = 0;
    for (const id of this.participants) {
      if (held.has(id) || this.inFlight.get(id) === true) continue;
      missing++;
      if (this.inFlight.has(id)) missingRunning++;
    }
    if (missing === 0) {
      this.flush();
    } else if (missingRunning > 0) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
    } else {
      this.timer ??= setTimeout(() => this.flush(), this.options.maxWaitMs);
    }
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const held = this.held;
    this.held = [];
    // Released in one synchronous loop so all of them are queued before node-llama-cpp dispatches.
    for (const h of held) h.release();
  }

  /**
   * The batch prioritization strategy: node-llama-cpp calls it once per decoded batch.
   * Generation steps (one token each) always get their slot; prompts share the rest, in
   * arrival order, chunked while other sequences are generating.
   */
  prioritize({ items, size }: { items: readonly BatchItem[]; size: number }): PrioritizedBatchItem[] {
    const result: PrioritizedBatchItem[] = [];
    let left = size;
    const prompts: BatchItem[] = [];
    for (const item of items) {
      if (item.tokens.length === 1 && left > 0) {
        result.push({ item, processAmount: 1 });
        left--;
      } else if (item.tokens.length > 1) prompts.push(item);
    }
    const othersGenerating = result.length > 0 || this.participants.size > prompts.length;
    const cap = othersGenerating ? Math.max(1, this.options.promptChunkTokens) : size;
    for (const item of prompts) {
      if (left <= 0) break;
      const amount = Math.min(item.tokens.length, cap, left);
      result.push({ item, processAmount: amount });
      left -= amount;
    }
    // llama.cpp (one KV stream per sequence) splits a batch wherever the sequence ids stop
    // rising by one: tokens of sequences 2, 0, 3, 1 would run as three decodes of one token
    // each instead of one of four, at three times the cost. So the batch goes in sequence order.
    const order = (r: PrioritizedBatchItem) => this.owners.get(r.item.tokens) ?? Number.MAX_SAFE_INTEGER;
    result.sort((a, b) => order(a) - order(b));
    this.decodeCalls++;
    for (const r of result) this.batchedTokens += r.processAmount;
    return result;
  }
}
