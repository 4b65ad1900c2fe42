import type { LoreNote } from "../../retrieval/hybridSearch.ts";

/**
 * What the server adds to a player's turn before the model sees it. Kept in
 * the session with the turn so the next prompt renders the same text again
 * (KV-cache reuse), and re-checked against visibility before every use.
 */
export interface TurnNotes {
  /** `secret`: a secret of the mind (secrets/), rendered as its own to keep */
  lore?: (Omit<LoreNote, "score"> & { secret?: boolean })[];
  memories?: string[];
  scene?: string;
  /** timed documents whose lore came in with this turn (never rendered: their timers count from it) */
  timed?: string[];
}

export interface SessionMessage {
  role: "user" | "assistant";
  /** the player's text or the NPC's reply, as said */
  content: string;
  notes?: TurnNotes;
}

export interface Session {
  id: string | null;
  messages: SessionMessage[];
  turnCount: number;
  tokenCount: number;
}
