import type { Clock } from "../core/clock.ts";
import { ApiError } from "../core/errors.ts";
import { SlidingLog } from "./SlidingLog.ts";

/** The window of both limits ("requests per minute"). */
export const RATE_LIMIT_WINDOW_MS = 60_000;

export interface RateLimits {
  perPlayerPerMinute: number;
  perProjectPerMinute: number;
}

/**
 * Sliding-window limits per (project, playerId) and per project (DESIGN.md
 * "Rate limits"), in memory of this server process. The limits are passed in
 * on every hit (read from SQLite per request), so a change by the CLI applies
 * to the next request; hits already recorded keep counting against it.
 */
export class RateLimiter {
  private readonly players = new Map<string, SlidingLog>();
  private readonly projects = new Map<string, SlidingLog>();
  private lastPrune: number;

  constructor(
    private readonly clock: Clock,
    private readonly windowMs = RATE_LIMIT_WINDOW_MS,
  ) {
    this.lastPrune = clock.now().getTime();
  }

  /**
   * Checks both windows; on success records the hit in both and returns its
   * time (for undo). On failure records nothing and throws 429 `Rate limit
   * exceeded` with `retryAfter` = whole seconds (≥ 1, rounded up) until the
   * stricter window frees a slot, also as the `Retry-After` header.
   */
  hit(projectId: string, playerId: string, limits: RateLimits): number {
    const now = this.clock.now().getTime();
    // Bounds memory even if nobody calls prune(): a sweep at most once per window.
    if (now - this.lastPrune >= this.windowMs) this.prune();
    const cutoff = now - this.windowMs;
    const playerKey = keyOf(projectId, playerId);
    const player = this.players.get(playerKey);
    const project = this.projects.get(projectId);
    player?.expire(cutoff);
    project?.expire(cutoff);
    const waitMs = Math.max(
      player?.waitMs(now, Math.max(1, limits.perPlayerPerMinute), this.windowMs) ?? 0,
      project?.waitMs(now, Math.max(1, limits.perProjectPerMinute), this.windowMs) ?? 0,
    );
    if (waitMs > 0) {
      const retryAfter = Math.max(1, Math.ceil(waitMs / 1000));
      throw new ApiError(429, "Rate limit exceeded", { retryAfter }, { "Retry-After": String(retryAfter) });
    }
    logOf(this.players, playerKey).add(now);
    logOf(this.projects, projectId).add(now);
    return now;
  }

  /** Undoes a recorded hit (e.g. the request failed validation later): `at` is what hit returned; without it, the newest hit. */
  undo(projectId: string, playerId: string, at?: number): void {
    this.players.get(keyOf(projectId, playerId))?.remove(at);
    this.projects.get(projectId)?.remove(at);
  }

  /** Drops expired hits and keys left empty (memory bounded by the hits of the last window). */
  prune(): void {
    const now = this.clock.now().getTime();
    this.lastPrune = now;
    for (const map of [this.players, this.projects]) {
      for (const [key, log] of map) {
        log.expire(now - this.windowMs);
        if (log.size === 0) map.delete(key);
      }
    }
  }

  /** Keys (player windows + project windows) currently held: for tests and /metrics. */
  get trackedKeys(): number {
    return this.players.size + this.projects.size;
  }
}

const keyOf = (projectId: string, playerId: string) => `${projectId}\u0000${playerId}`;

function logOf(map: Map<string, SlidingLog>, key: string): SlidingLog {
  let log = map.get(key);
  if (!log) map.set(key, (log = new SlidingLog()));
  return log;
}
