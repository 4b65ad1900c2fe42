import { ROLE_MARKERS } from "../../llm/cleanReply.ts";

/**
 * Makes streamed pieces match what `cleanReply` makes of the whole text: no leading whitespace,
 * nothing from a role marker on (a server without our stop strings may stream one), no `<s>`.
 * Text that could be the start of a marker is held back until the next piece decides it.
 */
export class StreamCleaner {
  private pending = "";
  private started = false;
  private cut = false;

  push(piece: string): string {
    if (this.cut) return "";
    let buf = (this.pending + piece).replace(/<s>/g, "");
    let end = buf.length;
    for (const marker of ROLE_MARKERS) {
      const at = buf.indexOf(marker);
      if (at >= 0 && at < end) {
        end = at;
        this.cut = true;
      }
    }
    if (this.cut) {
      buf = buf.slice(0, end);
      this.pending = "";
      return this.emit(buf);
    }
    const hold = heldBack(buf);
    this.pending = buf.slice(buf.length - hold);
    return this.emit(buf.slice(0, buf.length - hold));
  }

  /** What was held back, at the end of the stream (trailing whitespace is left: the final text is trimmed anyway). */
  flush(): string {
    if (this.cut) return "";
    const rest = this.pending;
    this.pending = "";
    return this.emit(rest);
  }

  private emit(text: string): string {
    if (!this.started) {
      text = text.trimStart();
      if (text === "") return "";
      this.started = true;
    }
    return text;
  }
}

const HOLD_PATTERNS = [...ROLE_MARKERS, "<s>"];

/** Length of the longest suffix of `buf` that is a proper prefix of a marker. */
function heldBack(buf: string): number {
  let best = 0;
  for (const m of HOLD_PATTERNS) {
    for (let n = Math.min(m.length - 1, buf.length); n > best; n--) {
      if (buf.endsWith(m.slice(0, n))) {
        best = n;
        break;
      }
    }
  }
  return best;
}
