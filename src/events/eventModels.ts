import { t } from "elysia";
import { StateWriteModel } from "../state/stateModels.ts";

/** Limits of POST /v1/events (the interact path's rate limits apply as well). */
export const EVENT_LIMITS = {
  /** events in one batch request */
  batch: 100,
  typeChars: 64,
  /** a witness memory's text is the description: the memories table's text limit */
  descriptionChars: 500,
  witnesses: 100,
  idChars: 255,
  gameTimeChars: 64,
  idempotencyKeyChars: 200,
  /** minds that may witness one event at its location (a bigger crowd is refused, not silently cut) */
  witnessesByLocation: 500,
} as const;

const Id = t.String({ minLength: 1, maxLength: EVENT_LIMITS.idChars });

/** One event, as the game reports it: `POST /v1/events` takes one, or `{events: [...]}` for a batch. */
export const EventModel = t.Object(
  {
    type: t.String({ minLength: 1, maxLength: EVENT_LIMITS.typeChars, pattern: "^[A-Za-z0-9][A-Za-z0-9_.:-]*$", description: "the game's event type, e.g. theft, fire, greeting" }),
    description: t.String({ minLength: 1, maxLength: EVENT_LIMITS.descriptionChars, description: "what happened, in the game's words: the witnesses' memory" }),
    location: t.Optional(t.Union([Id, t.Null()], { description: "a location id or key" })),
    witnesses: t.Optional(
      t.Union([t.Array(Id, { maxItems: EVENT_LIMITS.witnesses, description: "Entity Mind ids or keys" }), t.Literal("location")], {
        description: '"location": every mind whose location is the event\'s',
      }),
    ),
    playerId: t.Optional(t.Union([Id, t.Null()], { description: "the player the event is about: the witnesses' memories become this player's memories" })),
    importance: t.Optional(t.Integer({ minimum: 1, maximum: 10, description: "1 (trivia) … 10 (life-changing); default 5" })),
    at: t.Optional(t.Union([t.String({ minLength: 1, maxLength: EVENT_LIMITS.gameTimeChars }), t.Null()], { description: "the game's own time of the event (stored, shown in the log)" })),
    state: t.Optional(StateWriteModel),
    playerState: t.Optional(StateWriteModel),
    react: t.Optional(t.Union([t.Boolean(), Id], { description: "true: the first witness says its line now; or the id/key of the mind that speaks" })),
    secret: t.Optional(t.Boolean({ description: "never spread by gossip" })),
    public: t.Optional(t.Boolean({ description: "every mind at the location witnesses it (with the listed ones)" })),
  },
  { additionalProperties: false },
);

export const EventBatchModel = t.Object({ events: t.Array(EventModel, { minItems: 1, maxItems: EVENT_LIMITS.batch }) }, { additionalProperties: false });

export const EventBodyModel = t.Union([EventModel, EventBatchModel]);

export const EventView = t.Object({
  id: t.String(),
  type: t.String(),
  description: t.String(),
  locationId: t.Union([t.String(), t.Null()]),
  playerId: t.Union([t.String(), t.Null()]),
  importance: t.Integer(),
  at: t.Union([t.String(), t.Null()]),
  secret: t.Boolean(),
  public: t.Boolean(),
  witnesses: t.Array(t.String()),
  createdAt: t.String(),
});

export const ReactBodyModel = t.Object(
  {
    reason: t.String({ minLength: 1, maxLength: 500, description: "what just happened that the mind reacts to, e.g. 'The player walks up to the gate'" }),
    playerId: t.Optional(t.String({ minLength: 1, maxLength: 255, description: "the player it speaks to (its conversation keeps the line); without it the line is said to nobody in particular" })),
    stream: t.Optional(t.Boolean({ description: "true: SSE as /v1/npc/interact streams (or send Accept: text/event-stream)" })),
  },
  { additionalProperties: false },
);

export type EventBody = typeof EventModel.static;
export type ReactBody = typeof ReactBodyModel.static;
