/** One finished interaction, as the usage charts see it. */
export interface UsageSample {
  at: number;
  projectId: string;
  promptTokens: number;
  evaluatedPromptTokens: number;
  completionTokens: number;
  timeToFirstTokenMs: number;
  totalMs: number;
  creditsMicro: number;
}

/**
 * Token and latency samples of recent interactions, in memory (a ring of the
 * last CAPACITY): these figures are not kept anywhere durable, unlike
 * interaction counts and credits, which the ledger holds.
 */
export class UsageLog {
  static readonly CAPACITY = 20_000;
  private ring: UsageSample[] = [];
  private next = 0;

  record(s: UsageSample): void {
    if (this.ring.length < UsageLog.CAPACITY) this.ring.push(s);
    else this.ring[this.next] = s;
    this.next = (this.next + 1) % UsageLog.CAPACITY;
  }

  since(projectId: string, fromMs: number): UsageSample[] {
    return this.ring.filter((s) => s.projectId === projectId && s.at >= fromMs).sort((a, b) => a.at - b.at);
  }
}
