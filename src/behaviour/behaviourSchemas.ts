import { t } from "elysia";
import { AdminMindSchema } from "../lore/loreSchemas.ts";
import { BehaviourModel } from "./behaviourModel.ts";

/** Response shapes of the behaviour feature, for Swagger and Elysia's response checks. */

/** A mind as the admin API shows it: the spec's fields, its conditional knowledge and its authored behaviour. */
export const AdminMindWithBehaviourSchema = t.Composite([AdminMindSchema, t.Object({ behaviour: t.Union([BehaviourModel, t.Null()]) })]);

export const TurnBehaviourSchema = t.Object(
  {
    emotion: t.Object({ name: t.String(), intensity: t.Number({ minimum: 0, maximum: 1 }) }),
    actions: t.Array(t.Object({ id: t.String({ description: "unique in the conversation: report its result with actionResults" }), name: t.String(), params: t.Record(t.String(), t.Unknown()) })),
    trust: t.Optional(t.Object({ value: t.Integer(), delta: t.Integer(), label: t.Union([t.String(), t.Null()]) })),
  },
  { description: "what the mind did with its words (minds with behaviour only)" },
);

export const TrustViewSchema = t.Object({
  entityMindId: t.String(),
  playerId: t.String(),
  value: t.Integer(),
  label: t.Union([t.String(), t.Null()]),
  min: t.Integer(),
  max: t.Integer(),
  stored: t.Boolean({ description: "false: no value stored yet for this player (value is the mind's initial trust)" }),
});

export const TrustBody = t.Object({ value: t.Integer({ description: "within the mind's trust range" }) }, { additionalProperties: false });
