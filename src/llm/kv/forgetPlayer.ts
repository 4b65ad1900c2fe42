import { SnapshotStore } from "./SnapshotStore.ts";

/**
 * Matches a player's conversations in one project. Conversation keys are
 * `projectId:mindId:playerId` (npc/interactService.ts `conversationKey`); project and mind ids
 * never contain ':' (core/ids.ts), a player id may.
 */
export function playerConversations(projectId: string, playerId: string): (conversationKey: string) => boolean {
  const head = `${projectId}:`;
  return (key) => {
    if (!key.startsWith(head)) return false;
    const mindEnd = key.indexOf(":", head.length);
    return mindEnd > head.length && key.slice(mindEnd + 1) === playerId;
  };
}

/**
 * Deletes a player's conversation snapshots of every model without a loaded engine (the CLI's
 * erase; the server goes through `LlmEngine.forgetConversations`, which also clears resident
 * sequences). Returns how many snapshots were deleted.
 */
export function eraseSnapshotFiles(kvDir: string, match: (conversationKey: string) => boolean): number {
  // Any fingerprint folder will do as "current": deleteWhere covers them all.
  const store = new SnapshotStore(kvDir, "erase", Number.POSITIVE_INFINITY);
  const n = store.deleteWhere((h) => h.kind === "conversation" && match(h.key));
  store.dropIfEmpty();
  return n;
}

/**
 * The right to be forgotten covers KV state: a player's conversations leave the engine's sequences
 * and its snapshots leave the disk (every model's). Returns how many snapshots were deleted.
 */
export function forgetPlayerKv(
  deps: { llm?: { forgetConversations(match: (key: string) => boolean): number } | null; kvDir?: string },
  projectId: string,
  playerId: string,
): number {
  const match = playerConversations(projectId, playerId);
  let n = deps.llm?.forgetConversations(match) ?? 0;
  if (deps.kvDir) n += eraseSnapshotFiles(deps.kvDir, match);
  return n;
}
