import { Type as T, type Static, type TSchema } from "@sinclair/typebox";
import { ACTION_STATUSES, CONTEXT_ARRAY_FIELDS, CONTEXT_STRING_FIELDS, INTERACT_LIMITS as L } from "./interactLimits.ts";
import { STATE_KEY_PATTERN, STATE_LIMITS, type StateValue } from "../state/stateKeys.ts";

/**
 * The POST /v1/npc/interact body: one TypeBox model, built from the spec's
 * limits (INTERACT_LIMITS). The Swagger document shows it; validateInteract
 * checks the same rules in the spec's order of precedence (which message wins
 * when several fields are wrong — something a schema validator cannot order)
 * and a test holds the two to agreeing on every case.
 */

const contextStrings = Object.fromEntries(
  CONTEXT_STRING_FIELDS.map((f) => [
    f,
    T.Optional(T.Union([T.String({ maxLength: f === "custom" ? L.contextCustomChars : L.contextStringChars }), T.Null()])),
  ]),
) as Record<string, TSchema>;

const contextArrays = Object.fromEntries(
  CONTEXT_ARRAY_FIELDS.map((f) => [
    f,
    T.Optional(T.Union([T.Array(T.String({ maxLength: L.contextArrayItemChars }), { maxItems: L.contextArrayItems }), T.Null()])),
  ]),
) as Record<string, TSchema>;

export const HistoryMessageModel = T.Object(
  { role: T.Union([T.Literal("user"), T.Literal("assistant")]), content: T.String({ maxLength: L.historyMessageChars }) },
  { additionalProperties: false },
);

export const ActionResultModel = T.Object(
  {
    id: T.String({ minLength: 1, maxLength: L.actionIdChars, description: "an action's id from metadata.behaviour.actions" }),
    status: T.Union(ACTION_STATUSES.map((s) => T.Literal(s))),
    detail: T.Optional(T.String({ maxLength: L.actionDetailChars })),
  },
  { additionalProperties: false },
);

export const InteractBody = T.Object(
  {
    text: T.String({ minLength: 1, maxLength: L.textChars, pattern: "\\S", description: "the player's line (not only whitespace)" }),
    entityMindId: T.String({ minLength: 1 }),
    playerId: T.String({ minLength: 1, maxLength: L.playerIdChars }),
    context: T.Optional(
      T.Object(
        { ...contextStrings, ...contextArrays },
        { additionalProperties: false, description: `every value together at most ${L.contextTotalChars} characters` },
      ),
    ),
    memory: T.Optional(T.Object({ retrieve: T.Optional(T.Boolean({ default: false })) }, { additionalProperties: false })),
    activeKnowledgeTags: T.Optional(T.Array(T.String({ maxLength: L.activeTagChars }), { maxItems: L.activeTags })),
    conversationHistory: T.Optional(T.Array(HistoryMessageModel, { maxItems: L.historyMessages })),
    state: T.Optional(
      T.Record(T.String({ pattern: STATE_KEY_PATTERN }), T.Union([T.Boolean(), T.Number(), T.String({ maxLength: STATE_LIMITS.stringChars })]), {
        maxProperties: L.stateKeys,
        additionalProperties: false,
        description: "state for this turn only, laid over the player's stored state (never stored): key → true/false, a number or a string",
      }),
    ),
    availableActions: T.Optional(
      T.Array(T.String({ maxLength: L.actionNameChars }), {
        maxItems: L.availableActions,
        description: "a mind with behaviour: only these of its actions may be taken this turn (unknown names are ignored with a warning)",
      }),
    ),
    actionResults: T.Optional(T.Array(ActionResultModel, { maxItems: L.actionResults, description: "what became of earlier actions (the next reply knows)" })),
  },
  { additionalProperties: false },
);

export type SceneContext = Partial<Record<(typeof CONTEXT_STRING_FIELDS)[number], string>> &
  Partial<Record<(typeof CONTEXT_ARRAY_FIELDS)[number], string[]>>;

export type HistoryMessage = Static<typeof HistoryMessageModel>;
export type ActionResult = Static<typeof ActionResultModel>;

/** The body after validation: nulls in context dropped, memory.retrieve defaulted. */
export interface InteractRequest {
  text: string;
  entityMindId: string;
  playerId: string;
  context?: SceneContext;
  memory: { retrieve: boolean };
  activeKnowledgeTags?: string[];
  conversationHistory?: HistoryMessage[];
  /** this turn's state overrides (validated keys and values; declared types are checked when the turn is prepared) */
  state?: Record<string, StateValue>;
  availableActions?: string[];
  actionResults?: ActionResult[];
  /** set by POST /v1/npc/{mindId}/react, never by the interact body: `text` is what happened, and the mind speaks first */
  unprompted?: boolean;
  /** set by react without a player: the conversation is nobody's, so it is never summarised into memories */
  noMemory?: boolean;
}
