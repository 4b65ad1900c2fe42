import { ApiError } from "../core/errors.ts";

/** One Server-Sent Event. */
export function sseEvent(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export function wantsEventStream(accept: string | null | undefined): boolean {
  return !!accept && accept.split(",").some((p) => p.trim().toLowerCase().startsWith("text/event-stream"));
}

/**
 * An SSE reply that opens only once its first event worth waiting for has come (or the job ended), so a failure
 * before it is still a plain JSON error. Events sent before the stream opens are kept and flushed in order; the
 * job's result ends the stream as `done` (`error` with its ApiError body if it fails); a reader that leaves aborts.
 */
export class EventStream {
  readonly #buffered: string[] = [];
  #push: ((chunk: string) => void) | null = null;

  send(event: string, data: unknown): void {
    const ev = sseEvent(event, data);
    if (this.#push) this.#push(ev);
    else this.#buffered.push(ev);
  }

  /** A typed turn: what the mind does, after its last word and before `done` (which repeats it in metadata). */
  sendBehaviour(b: { emotion: unknown; actions: readonly unknown[] }): void {
    this.send("emotion", b.emotion);
    for (const a of b.actions) this.send("action", a);
  }

  /** The response; `done` makes the `done` event's data from the job's result when it comes. */
  respond<T>(job: Promise<T>, abort: AbortController, done: (result: T) => unknown, headers: Record<string, string> = {}): Response {
    const encoder = new TextEncoder();
    const stream = new ReadableStream<Uint8Array>({
      start: (controller) => {
        // the reader may have gone (a closed tab): nothing is left to write to or close then
        const push = (chunk: string) => {
          try {
            controller.enqueue(encoder.encode(chunk));
          } catch {}
        };
        const close = () => {
          try {
            controller.close();
          } catch {}
        };
        this.#push = push;
        for (const ev of this.#buffered.splice(0)) push(ev);
        job.then(
          (result) => {
            push(sseEvent("done", done(result)));
            close();
          },
          (e: unknown) => {
            push(sseEvent("error", e instanceof ApiError ? e.toBody() : { error: "Generation failed" }));
            close();
          },
        );
      },
      cancel: () => abort.abort(),
    });
    return new Response(stream, { headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", ...headers } });
  }
}
