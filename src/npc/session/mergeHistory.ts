import type { HistoryMessage } from "../validateInteract.ts";
import type { SessionMessage } from "./sessionTypes.ts";

const same = (a: { role: string; content: string }, b: { role: string; content: string }) =>
  a.role === b.role && a.content.trim() === b.content.trim();

/**
 * Merges the caller's conversationHistory into the server's session; the
 * caller's copy wins where they overlap. The overlap is found by aligning the
 * start of the caller's copy with the session: everything the session has
 * from that point on is replaced by the caller's messages (keeping the
 * server's notes and behaviour on the messages that match exactly). With no alignment the
 * caller's messages follow the session's.
 */
export function mergeHistory(session: SessionMessage[], caller: HistoryMessage[] | undefined): SessionMessage[] {
  if (!caller || caller.length === 0) return session;
  let start = -1;
  for (let i = session.length - 1; i >= 0; i--) {
    if (same(session[i], caller[0])) {
      start = i;
      break;
    }
  }
  const kept = start >= 0 ? session.slice(0, start) : session;
  const tail = start >= 0 ? session.slice(start) : [];
  const merged = caller.map((m, i): SessionMessage => {
    const match = tail[i];
    if (!match || !same(match, m)) return { role: m.role, content: m.content };
    // The server's notes and a reply's behaviour stay with the message the caller's copy matches.
    const { notes, behaviour, tail: sampled } = match;
    return { role: m.role, content: m.content, ...(notes ? { notes } : {}), ...(behaviour ? { behaviour } : {}), ...(sampled ? { tail: sampled } : {}) };
  });
  return [...kept, ...merged];
}
