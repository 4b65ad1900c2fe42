import type { PreparedTurn } from "../prepareTurn.ts";
import type { ReplyContext } from "./detectors.ts";
import { replyContextFor } from "./replyContext.ts";

/** The reply context of a prepared turn: the notes it carries (shared, earlier, new) and the mind's previous line. */
export function turnReplyContext(p: Pick<PreparedTurn, "mind" | "history" | "newLore" | "sharedLore">, playerLine: string): ReplyContext {
  const notes = [...p.sharedLore, ...p.newLore, ...p.history.flatMap((m) => m.notes?.lore ?? [])];
  const previousReply = [...p.history].reverse().find((m) => m.role === "assistant")?.content ?? null;
  return replyContextFor(p.mind, { playerLine, noteNames: notes.map((n) => n.documentName), previousReply });
}
