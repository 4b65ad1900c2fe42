/**
 * One AbortSignal for a generation: the caller's signal, a timeout, and engine shutdown.
 * Remembers which one fired first so the result can say "abort" or "timeout".
 */
export class RequestSignal {
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private firedReason: "abort" | "timeout" | null = null;
  private readonly detach: () => void;

  constructor(external?: AbortSignal, timeoutMs?: number) {
    this.signal = this.controller.signal;
    const onExternal = () => this.abort("abort");
    if (external?.aborted) this.abort("abort");
    else external?.addEventListener("abort", onExternal, { once: true });
    this.detach = () => external?.removeEventListener("abort", onExternal);
    if (timeoutMs != null && Number.isFinite(timeoutMs) && !this.signal.aborted)
      this.timer = setTimeout(() => this.abort("timeout"), Math.max(0, timeoutMs));
  }

  get reason(): "abort" | "timeout" | null {
    return this.firedReason;
  }

  abort(reason: "abort" | "timeout"): void {
    if (this.firedReason) return;
    this.firedReason = reason;
    this.controller.abort(new DOMException(reason === "timeout" ? "Generation timed out" : "Generation aborted", "AbortError"));
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.detach();
  }
}
