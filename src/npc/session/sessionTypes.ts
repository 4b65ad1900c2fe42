import type { LoreNote } from "../../retrieval/hybridSearch.ts";
import type { ActionResultNote, TurnBehaviour } from "../../behaviour/behaviourPrompt.ts";

/**
 * What the server adds to a player's turn before the model sees it. Kept in
 * the session with the turn so the next prompt renders the same text again
 * (KV-cache reuse), and re-checked against visibility before every use.
 */
export interface TurnNotes {
  /** `secret`: a secret of the mind (secrets/), rendered as its own to keep unless its reveal condition holds (`revealed`) */
  lore?: (Omit<LoreNote, "score"> & { secret?: boolean; revealed?: boolean })[];
  memories?: string[];
  scene?: string;
  /** the mind's conditional hints and restrictions in force from this turn (rendered as its `[Now]` block) */
  now?: { kind: "hint" | "restriction"; text: string }[];
  /** timed documents whose lore came in with this turn (never rendered: their timers count from it) */
  timed?: string[];
  /** a mind with behaviour: the player's trust and the actions offered now (src/behaviour) */
  behaviour?: string;
  /** what became of earlier actions, as the caller reported */
  actionResults?: ActionResultNote[];
  /** world memories of the mind that came in with this turn (src/events), re-checked every turn */
  events?: { id: string; text: string }[];
  /** an unprompted line (POST /v1/npc/{mindId}/react): the content is what happened, not a player's words */
  unprompted?: boolean;
}

export interface SessionMessage {
  role: "user" | "assistant";
  /** the player's text or the NPC's reply, as said */
  content: string;
  notes?: TurnNotes;
  /** a reply's emotion, actions and trust, rendered back after its words (src/behaviour) */
  behaviour?: TurnBehaviour;
  /** the reply's tail as sampled, when it says exactly what was settled: rendered back as is (KV reuse) */
  tail?: string;
}

export interface Session {
  id: string | null;
  messages: SessionMessage[];
  turnCount: number;
  tokenCount: number;
}
