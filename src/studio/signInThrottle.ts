/**
 * Slows repeated wrong tokens: after FREE failures from one client, each
 * further attempt waits twice as long as the one before (capped), and the
 * count decays after a quiet period. Guessing a 40-character token was never
 * practical; this keeps a script from trying, and a person barely notices.
 */
const FREE = 3;
const BASE_MS = 250;
const MAX_MS = 8_000;
const FORGET_MS = 15 * 60_000;

export class SignInThrottle {
  private failures = new Map<string, { count: number; last: number }>();

  /** How long to wait before answering this client's next attempt. */
  delayMs(client: string, nowMs: number): number {
    const f = this.failures.get(client);
    if (!f || nowMs - f.last > FORGET_MS) return 0;
    if (f.count < FREE) return 0;
    return Math.min(MAX_MS, BASE_MS * 2 ** (f.count - FREE));
  }

  fail(client: string, nowMs: number): void {
    const f = this.failures.get(client);
    if (this.failures.size > 10_000) this.failures.clear(); // bounded memory under a spray of clients
    this.failures.set(client, { count: f && nowMs - f.last <= FORGET_MS ? f.count + 1 : 1, last: nowMs });
  }

  succeed(client: string): void {
    this.failures.delete(client);
  }
}
