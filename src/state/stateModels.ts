import { t } from "elysia";
import { STATE_KEY_PATTERN, STATE_LIMITS } from "./stateKeys.ts";

/** Swagger models of the state routes (/v1/state and the admin API); the services check every rule themselves. */

export const StateValueModel = t.Union([t.Boolean(), t.Number(), t.String({ maxLength: STATE_LIMITS.stringChars })]);

export const StateMapModel = t.Record(t.String({ pattern: STATE_KEY_PATTERN }), StateValueModel, {
  description: "key → value (true/false, a number or a string)",
});

export const StateWriteModel = t.Object(
  {
    set: t.Optional(t.Record(t.String({ pattern: STATE_KEY_PATTERN }), StateValueModel, { maxProperties: STATE_LIMITS.keysPerScope })),
    unset: t.Optional(t.Array(t.String({ pattern: STATE_KEY_PATTERN }), { maxItems: STATE_LIMITS.keysPerScope })),
  },
  {
    additionalProperties: false,
    description: "unset keys go; each set key is written, clearing the other keys of its exclusive group; one transaction",
  },
);

export const WorldStateView = t.Object({ state: StateMapModel });
export const PlayerStateView = t.Object({ playerId: t.String(), state: StateMapModel });

const Declaration = t.Object(
  {
    type: t.Union([t.Literal("boolean"), t.Literal("number"), t.Literal("string")]),
    default: t.Optional(StateValueModel),
    enum: t.Optional(t.Array(StateValueModel, { maxItems: STATE_LIMITS.enumValues })),
  },
  { additionalProperties: false },
);

export const StateSchemaModel = t.Object(
  {
    stateKeys: t.Optional(t.Record(t.String({ pattern: STATE_KEY_PATTERN }), Declaration, { maxProperties: STATE_LIMITS.declaredKeys })),
    exclusiveGroups: t.Optional(t.Array(t.String({ pattern: STATE_KEY_PATTERN }), { maxItems: STATE_LIMITS.exclusiveGroups })),
  },
  { additionalProperties: false },
);
