/**
 * Per-backend circuit: `failureThreshold` failures in a row open it (no traffic), after a cooldown
 * one trial request (or a passing health probe) is let through ("half-open"); its success closes the
 * circuit, its failure opens it again with a doubled cooldown (up to `maxCooldownMs`).
 */
export type CircuitState = "closed" | "open" | "half-open";

export class CircuitBreaker {
  private failures = 0;
  private openedAt = 0;
  private cooldownMs: number;
  private trialInFlight = false;
  private opened = false;

  constructor(
    private readonly opts: { failureThreshold: number; cooldownMs: number; maxCooldownMs: number; now?: () => number } = {
      failureThreshold: 3,
      cooldownMs: 2_000,
      maxCooldownMs: 30_000,
    },
  ) {
    this.cooldownMs = opts.cooldownMs;
  }

  private now(): number {
    return this.opts.now ? this.opts.now() : Date.now();
  }

  get state(): CircuitState {
    if (!this.opened) return "closed";
    return this.now() - this.openedAt >= this.cooldownMs ? "half-open" : "open";
  }

  /** May a request go to this backend now? In half-open, only one trial at a time. */
  allows(): boolean {
    const s = this.state;
    if (s === "closed") return true;
    if (s === "open") return false;
    return !this.trialInFlight;
  }

  /** Call when a request is dispatched; returns a token for the outcome. */
  begin(): { trial: boolean } {
    const trial = this.state === "half-open";
    if (trial) this.trialInFlight = true;
    return { trial };
  }

  success(): void {
    this.failures = 0;
    this.opened = false;
    this.trialInFlight = false;
    this.cooldownMs = this.opts.cooldownMs;
  }

  failure(): void {
    this.trialInFlight = false;
    if (this.opened) {
      // a failed trial (or another failure while open): open again, for longer
      this.cooldownMs = Math.min(this.opts.maxCooldownMs, this.cooldownMs * 2);
      this.openedAt = this.now();
      return;
    }
    if (++this.failures >= this.opts.failureThreshold) this.trip();
  }

  /** Opens at once (a failed health probe: the backend is known to be unreachable). */
  trip(): void {
    this.opened = true;
    this.openedAt = this.now();
    this.trialInFlight = false;
  }
}
