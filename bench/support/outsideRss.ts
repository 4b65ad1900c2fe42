/**
 * Peak RSS of this process as a second process sees it (Linux /proc), every 20 ms. A sampler
 * inside the process (setInterval) is starved exactly when memory peaks: the scan keeps the
 * event loop busy, and an in-process sampler under-read the 200 MB archive's peak by 30–70 MB.
 */
import type { Subprocess } from "bun";

const SCRIPT = `
const pid = process.env.RSS_PID;
let max = 0;
const read = () => {
  try {
    const kb = Number(/VmRSS:\\s+(\\d+)/.exec(require("fs").readFileSync("/proc/" + pid + "/status", "utf8"))[1]);
    if (kb > max) max = kb;
  } catch {}
};
setInterval(read, 20);
for await (const line of console) {
  read();
  console.log(max * 1024);
  max = 0;
}
`;

export class OutsideRss {
  private constructor(
    private readonly proc: Subprocess<"pipe", "pipe", "inherit">,
    private readonly lines: AsyncIterator<string>,
  ) {}

  /** null where there is no /proc (the caller keeps its in-process figure). */
  static start(): OutsideRss | null {
    if (process.platform !== "linux") return null;
    const proc = Bun.spawn([process.execPath, "-e", SCRIPT], { env: { ...process.env, RSS_PID: String(process.pid) }, stdin: "pipe", stdout: "pipe", stderr: "inherit" });
    return new OutsideRss(proc, lineReader(proc.stdout));
  }

  /** The peak RSS (bytes) since the previous call, and a new phase from now. */
  async phase(): Promise<number> {
    this.proc.stdin.write("peak\n");
    await this.proc.stdin.flush();
    const { value } = await this.lines.next();
    return Number(value);
  }

  stop(): void {
    this.proc.kill();
  }
}

async function* lineReader(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buf = "";
  for await (const chunk of stream) {
    buf += decoder.decode(chunk, { stream: true });
    for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
      yield buf.slice(0, i);
      buf = buf.slice(i + 1);
    }
  }
}
