/**
 * The engine's turns in flight (waiting for a sequence or generating). Background KV work (a mind's
 * prompt being warmed) looks here between small steps and stands aside while any turn is in flight:
 * a turn never waits behind it for more than one step.
 */
export class TurnGate {
  private active = 0;
  private waiting: (() => void)[] = [];

  get busy(): boolean {
    return this.active > 0;
  }

  enter(): void {
    this.active++;
  }

  leave(): void {
    this.active = Math.max(0, this.active - 1);
    if (this.active === 0) for (const wake of this.waiting.splice(0)) wake();
  }

  /** Resolves once no turn is in flight (at once when none is); another may have started by the time the caller runs. */
  quiet(): Promise<void> {
    return this.active === 0 ? Promise.resolve() : new Promise((resolve) => this.waiting.push(resolve));
  }
}
