import { open, type FileHandle } from "node:fs/promises";
import { ArchiveError } from "./ArchiveError.ts";

/** Small reads (headers, names) are served from one cached window of this size. */
const WINDOW_BYTES = 64 * 1024;

/**
 * Positioned reads on an archive file. The archive is never loaded whole:
 * headers come through a small window cache, entry data is read in chunks by
 * the caller.
 */
export class PositionedReader {
  private windowStart = 0;
  private window = new Uint8Array(0);

  private constructor(
    private readonly handle: FileHandle,
    readonly size: number,
  ) {}

  static async open(path: string): Promise<PositionedReader> {
    let handle: FileHandle;
    try {
      handle = await open(path, "r");
    } catch (cause) {
      throw new ArchiveError(`cannot open archive: ${(cause as Error).message}`, { cause });
    }
    try {
      const stat = await handle.stat();
      return new PositionedReader(handle, stat.size);
    } catch (cause) {
      await handle.close();
      throw new ArchiveError(`cannot open archive: ${(cause as Error).message}`, { cause });
    }
  }

  /**
   * Exactly `length` bytes at `position`. The result may be a view of the
   * cache window: copy it if it must outlive the next read.
   */
  async read(position: number, length: number): Promise<Uint8Array> {
    this.assertInside(position, length);
    const offsetInWindow = position - this.windowStart;
    if (offsetInWindow >= 0 && offsetInWindow + length <= this.window.length) {
      return this.window.subarray(offsetInWindow, offsetInWindow + length);
    }
    if (length > WINDOW_BYTES / 2) {
      const out = new Uint8Array(length);
      await this.readInto(out, 0, length, position);
      return out;
    }
    const windowLength = Math.min(WINDOW_BYTES, this.size - position);
    const window = new Uint8Array(windowLength);
    await this.readInto(window, 0, windowLength, position);
    this.window = window;
    this.windowStart = position;
    return window.subarray(0, length);
  }

  /** Fills target[offset, offset+length) from the file at `position`, bypassing the cache. */
  async readInto(target: Uint8Array, offset: number, length: number, position: number): Promise<void> {
    this.assertInside(position, length);
    let done = 0;
    while (done < length) {
      const { bytesRead } = await this.handle.read(target, offset + done, length - done, position + done);
      // The file shrank under us: nothing in it can be trusted any more.
      if (bytesRead === 0) throw new ArchiveError("archive is truncated");
      done += bytesRead;
    }
  }

  async close(): Promise<void> {
    await this.handle.close();
  }

  private assertInside(position: number, length: number): void {
    if (position < 0 || length < 0 || position + length > this.size) {
      throw new ArchiveError("archive is truncated");
    }
  }
}
