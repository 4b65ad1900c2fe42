/** One Server-Sent Event. */
export function sseEvent(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export function wantsEventStream(accept: string | null | undefined): boolean {
  return !!accept && accept.split(",").some((p) => p.trim().toLowerCase().startsWith("text/event-stream"));
}
