/** How long a refused body is still read (and discarded) before the connection closes. */
export const LINGER_MS = 1000;

/** Why a body could not be read whole. */
export type BodyReadFailure = "too_large" | "timeout" | "aborted";

/**
 * Reads a request body as it arrives, stopping at `cap` bytes (the rest is never buffered) or at
 * `deadlineMs` (a client trickling its body holds a connection for that long at most, whatever the
 * route's reply budget). Returns the bytes, or why it stopped.
 */
export async function readBodyCapped(
  body: ReadableStream<Uint8Array>,
  cap: number,
  deadlineMs: number,
): Promise<{ ok: true; bytes: Uint8Array } | { ok: false; why: BodyReadFailure }> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    reader.cancel().catch(() => {});
  }, deadlineMs);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (timedOut) return { ok: false, why: "timeout" };
      size += value.byteLength;
      if (size > cap) {
        // Over the cap: nothing more is kept; what follows is discarded briefly (see drainBriefly).
        chunks.length = 0;
        clearTimeout(timer);
        setTimeout(() => reader.cancel().catch(() => {}), Math.min(LINGER_MS, deadlineMs));
        while (!(await reader.read()).done);
        return { ok: false, why: "too_large" };
      }
      chunks.push(value);
    }
  } catch {
    if (size > cap) return { ok: false, why: "too_large" };
    return { ok: false, why: timedOut ? "timeout" : "aborted" };
  } finally {
    clearTimeout(timer);
  }
  if (timedOut) return { ok: false, why: "timeout" };
  if (chunks.length === 1) return { ok: true, bytes: chunks[0] };
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return { ok: true, bytes };
}

/**
 * Reads and discards what remains of a refused body for at most `ms`, holding nothing. Closing a
 * connection while the client is still sending makes the kernel reset it, and a reset can discard
 * the refusal before the client reads it: a short lingering drain lets the 413/415 arrive.
 */
export async function drainBriefly(body: ReadableStream<Uint8Array> | null, ms: number): Promise<void> {
  if (!body) return;
  let reader: ReturnType<typeof body.getReader>;
  try {
    reader = body.getReader();
  } catch {
    return; // already locked: the capped reader cancelled it
  }
  const timer = setTimeout(() => reader.cancel().catch(() => {}), ms);
  try {
    while (!(await reader.read()).done);
  } catch {
  } finally {
    clearTimeout(timer);
  }
}
