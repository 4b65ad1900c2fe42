import type { FileHandle } from "node:fs/promises";

const STAGE_BYTES = 8 * 1024 * 1024;

/**
 * Writes arrays one after another into a file from a byte offset, staged into 8 MB writes: a write per document
 * block (thousands at 100k chunks) would wait behind every slice of an index build running meanwhile, and a save
 * would take tens of seconds instead of a fraction of one. Used by the rows' file and its tail (rowsTail.ts).
 */
export class StagedWriter {
  private readonly stage = new Uint8Array(STAGE_BYTES);
  private staged = 0;

  /** `at`: where the first byte goes */
  constructor(
    private readonly fh: FileHandle,
    public at = 0,
    private readonly align = 64,
  ) {}

  async put(buf: ArrayBufferView): Promise<void> {
    let bytes = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
    while (bytes.byteLength) {
      const n = Math.min(bytes.byteLength, STAGE_BYTES - this.staged);
      this.stage.set(bytes.subarray(0, n), this.staged);
      this.staged += n;
      this.at += n;
      bytes = bytes.subarray(n);
      if (this.staged === STAGE_BYTES) await this.drain();
    }
  }

  /** Zero bytes up to the next multiple of the alignment (typed views over the file need it). */
  async pad(): Promise<void> {
    if (this.at % this.align) await this.put(new Uint8Array(this.align - (this.at % this.align)));
  }

  /** Writes what is staged; call once at the end. */
  async drain(): Promise<void> {
    if (this.staged) await this.fh.write(this.stage, 0, this.staged, this.at - this.staged);
    this.staged = 0;
  }
}
