import cliProgress from "cli-progress";
import type { DownloadProgress } from "./downloadModel.ts";

/** Where the bar draws: a terminal (redrawn in place) or anything else (one line per second). */
export interface ProgressStream {
  isTTY?: boolean;
  write(text: string): unknown;
}

export interface DownloadProgressBar {
  update(p: DownloadProgress): void;
  stop(): void;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(v < 10 ? 2 : 1)} ${units[u]}`;
}

/** The `model pull` progress bar (cli-progress) on stderr. */
export function createDownloadProgressBar(label: string, stream: ProgressStream): DownloadProgressBar {
  const bar = new cliProgress.SingleBar(
    {
      // cli-progress only types a NodeJS.WritableStream; it uses isTTY, write and (on a TTY) the cursor functions.
      stream: stream as unknown as NodeJS.WritableStream,
      format: `${label} |{bar}| {percentage}% | {done} / {size} | {speed}/s | ETA {eta_formatted}`,
      barCompleteChar: "\u2588",
      barIncompleteChar: "\u2591",
      hideCursor: false, // a Ctrl+C mid-download must not leave the cursor hidden (gracefulExit would swallow SIGINT)
      noTTYOutput: true,
      notTTYSchedule: 1000,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  let t0 = 0;
  let base = 0;
  const payload = (p: DownloadProgress) => {
    const secs = Math.max(0.001, (performance.now() - t0) / 1000);
    return { done: formatBytes(p.downloaded), size: p.total === null ? "?" : formatBytes(p.total), speed: formatBytes(Math.round((p.downloaded - base) / secs)) };
  };
  return {
    update(p) {
      const total = p.total ?? Math.max(p.downloaded, 1);
      if (!started) {
        started = true;
        t0 = performance.now();
        base = p.resumedFrom;
        bar.start(total, p.downloaded, payload(p));
        return;
      }
      if (p.resumedFrom !== base && p.downloaded === p.resumedFrom) {
        // a retry resumed (or restarted): speed counts from here
        t0 = performance.now();
        base = p.resumedFrom;
      }
      bar.setTotal(total);
      bar.update(p.downloaded, payload(p));
    },
    stop() {
      if (started) bar.stop();
    },
  };
}

/** A stream that turns the bar's non-TTY output into whole lines for a line-based writer. */
export function lineStream(writeLine: (line: string) => void): ProgressStream {
  let buffer = "";
  return {
    isTTY: false,
    write(text: string) {
      buffer += text;
      for (let i = buffer.indexOf("\n"); i >= 0; i = buffer.indexOf("\n")) {
        const line = buffer.slice(0, i).trimEnd();
        buffer = buffer.slice(i + 1);
        if (line) writeLine(line);
      }
      return true;
    },
  };
}
