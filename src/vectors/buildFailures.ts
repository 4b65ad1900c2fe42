/** How long a project's background build that failed waits before it is tried again (CacheOptions.buildRetryMs). */
export const BUILD_RETRY_MS = 60_000;

/** A project cache's background builds: the approximate index (IvfIndex), the sparse queries' column copy, and the rows' columns compacted (columnCompaction.ts). */
export type BuildKind = "index build" | "column copy" | "column compaction";

/**
 * What a project cache does when one of its background builds throws (a corrupt input, such as a snapshot file cut
 * short under a block's float32 rows, or a bug): the build is dropped, the exact path answers as it did before the
 * build (the row scan, or the previous index or copy), the failure is logged once with the project and the build, and
 * the build is not started again for `retryMs` (an input that fails once fails every time: a build restarted at each
 * write would spend a build's CPU per write for nothing). Why here and not left to the runtime: a build's step runs
 * in a timer or after a search has its answer, outside any request, where a throw is an uncaught error that ends the
 * process.
 */
export class BuildFailures {
  private readonly until = new Map<BuildKind, number>();
  private readonly logged = new Set<BuildKind>();

  constructor(
    private readonly projectId: string,
    private readonly retryMs = BUILD_RETRY_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The build failed with `error`: logged (once until it next succeeds), then held back for `retryMs`. */
  failed(kind: BuildKind, error: unknown): void {
    this.until.set(kind, this.now() + this.retryMs);
    if (this.logged.has(kind)) return;
    this.logged.add(kind);
    const why = error instanceof Error ? (error.stack ?? error.message) : String(error);
    console.error(`lorehold: the ${kind} of project ${this.projectId}'s vector cache failed; the exact scan answers, tried again in ${Math.round(this.retryMs / 1000)} s at the earliest: ${why}`);
  }

  /** May the build start now (never failed, or its wait is over)? */
  mayStart(kind: BuildKind): boolean {
    const until = this.until.get(kind);
    return until === undefined || this.now() >= until;
  }

  /** The build completed: a later failure is news again. */
  succeeded(kind: BuildKind): void {
    this.until.delete(kind);
    this.logged.delete(kind);
  }
}
