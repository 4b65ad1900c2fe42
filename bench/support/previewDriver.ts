// The HTTP side of bench/http-preview.ts, its own process (so the client's CPU is not the server's): it sends each
// request the parent passes over IPC, one at a time, reads the whole reply and answers with its status, wall time,
// bytes and (when asked) the body.
export interface DriverAsk {
  url: string;
  init: { method: string; headers: Record<string, string>; body?: string };
  /** the reply's text is sent back (a comparison of bodies) */
  body?: boolean;
}

export interface DriverAnswer {
  status: number;
  ms: number;
  bytes: number;
  body?: string;
}

if (import.meta.main) {
  process.on("message", async (ask: DriverAsk) => {
    const t0 = performance.now();
    try {
      const res = await fetch(ask.url, ask.init);
      const text = await res.text();
      const ms = performance.now() - t0;
      process.send!({ status: res.status, ms, bytes: Buffer.byteLength(text), ...(ask.body ? { body: text } : {}) } satisfies DriverAnswer);
    } catch {
      process.send!({ status: 0, ms: performance.now() - t0, bytes: 0 } satisfies DriverAnswer);
    }
  });
  process.send!({ status: -1, ms: 0, bytes: 0 } satisfies DriverAnswer); // ready
}
