import { Type as T, type Static } from "@sinclair/typebox";
import { CONDITION_LIMITS } from "../conditions/parseCondition.ts";

/**
 * A mind's behaviour as authored (the admin API's `behaviour` field, a lore pack's `behaviour:`): the emotions
 * it may show, the actions it may take and how its trust in each player moves. One TypeBox model: the admin
 * API and packs validate with it (validateBehaviour.ts adds what a schema cannot say: unique names, ranges),
 * the types come from it and Swagger shows it.
 *
 * Action parameters are a JSON-Schema object of flat, typed fields; a reference to the project's minds,
 * locations or items is `{"type": "string", "x-ref": "mind" | "location" | "item"}`, resolved at grammar time
 * to an enum of their names (items: the project's lore documents tagged `items`). Every parameter is always
 * filled in: the grammar that samples the tail writes every field of an object.
 */

export const BEHAVIOUR_LIMITS = {
  emotions: 16,
  actions: 32,
  params: 16,
  nameChars: 64,
  descriptionChars: 500,
  stringParamChars: 200,
  enumValues: 64,
  enumValueChars: 100,
  whenChars: CONDITION_LIMITS.chars,
  maxPerTurn: 8,
  cooldownTurns: 1000,
  trustBound: 1000,
  trustStep: 10,
  trustLabels: 10,
  labelChars: 50,
} as const;
const L = BEHAVIOUR_LIMITS;

export const DEFAULT_EMOTIONS = ["neutral", "happy", "sad", "angry", "afraid", "surprised", "disgusted"] as const;
export const DEFAULT_MAX_ACTIONS_PER_TURN = 3;
/** The action gate's threshold for a mind that sets none (calibrated on the labelled set: tailSchema.ts ACT_MIN_PROBABILITY). */
export const DEFAULT_ACTION_GATE = 0.9;
export const DEFAULT_TRUST = { min: -10, max: 10, initial: 0, maxStep: 2 } as const;

const closed = { additionalProperties: false } as const;
const IDENTIFIER = `^[A-Za-z_][A-Za-z0-9_]{0,${L.nameChars - 1}}$`;
const identifierProblem = `must be an identifier: a letter or _, then letters, digits or _ (at most ${L.nameChars})`;
const Identifier = T.String({ pattern: IDENTIFIER, problem: identifierProblem });
const Text = (max: number) => T.String({ maxLength: max, pattern: "\\S", problem: "must be a non-empty string" });
const Description = T.Optional(T.String({ maxLength: L.descriptionChars, description: "what the model reads about this parameter" }));

export const StringParamModel = T.Object(
  { type: T.Literal("string"), maxLength: T.Integer({ minimum: 1, maximum: L.stringParamChars }), description: Description },
  { ...closed, title: "text parameter" },
);
export const EnumParamModel = T.Object(
  {
    type: T.Literal("string"),
    enum: T.Array(T.String({ minLength: 1, maxLength: L.enumValueChars }), { minItems: 1, maxItems: L.enumValues }),
    description: Description,
  },
  { ...closed, title: "choice parameter" },
);
export const IntegerParamModel = T.Object(
  {
    type: T.Literal("integer"),
    minimum: T.Optional(T.Integer({ minimum: -1e9, maximum: 1e9 })),
    maximum: T.Optional(T.Integer({ minimum: -1e9, maximum: 1e9 })),
    description: Description,
  },
  { ...closed, title: "integer parameter (the server clamps it to minimum/maximum)" },
);
export const BooleanParamModel = T.Object({ type: T.Literal("boolean"), description: Description }, { ...closed, title: "yes/no parameter" });
export const RefParamModel = T.Object(
  {
    type: T.Literal("string"),
    "x-ref": T.Union([T.Literal("mind"), T.Literal("location"), T.Literal("item")], {
      description: "the name of one of the project's minds, locations or items (lore documents tagged `items`)",
    }),
    description: Description,
  },
  { ...closed, title: "reference parameter" },
);

export const ParamModel = T.Union([StringParamModel, EnumParamModel, IntegerParamModel, BooleanParamModel, RefParamModel], {
  problem:
    "must be a parameter schema: {type: string, maxLength}, {type: string, enum: [...]}, {type: string, x-ref: mind|location|item}, {type: integer, minimum?, maximum?} or {type: boolean}",
});

export const ParamsModel = T.Object(
  {
    type: T.Literal("object"),
    properties: T.Record(T.String({ pattern: IDENTIFIER }), ParamModel, {
      ...closed,
      maxProperties: L.params,
      keyProblem: identifierProblem,
    }),
  },
  { ...closed, description: "a JSON-Schema object of flat, typed fields" },
);

export const ActionModel = T.Object(
  {
    name: Identifier,
    description: Text(L.descriptionChars),
    params: T.Optional(ParamsModel),
    cooldownTurns: T.Optional(T.Integer({ minimum: 1, maximum: L.cooldownTurns, description: "turns after a use before the action is offered again" })),
    maxPerTurn: T.Optional(T.Integer({ minimum: 1, maximum: L.maxPerTurn, description: "uses in one turn; extra ones are dropped" })),
    when: T.Optional(
      T.String({ maxLength: L.whenChars, pattern: "\\S", problem: "must be a non-empty string", description: "a condition on world and player state and trust: the action is offered only while it holds" }),
    ),
  },
  closed,
);

export const TrustLabelModel = T.Object({ min: T.Integer({ minimum: -L.trustBound, maximum: L.trustBound }), label: Text(L.labelChars) }, closed);

export const TrustModel = T.Object(
  {
    enabled: T.Optional(T.Boolean({ default: true })),
    min: T.Optional(T.Integer({ minimum: -L.trustBound, maximum: L.trustBound, default: DEFAULT_TRUST.min })),
    max: T.Optional(T.Integer({ minimum: -L.trustBound, maximum: L.trustBound, default: DEFAULT_TRUST.max })),
    initial: T.Optional(T.Integer({ minimum: -L.trustBound, maximum: L.trustBound, default: DEFAULT_TRUST.initial })),
    maxStep: T.Optional(T.Integer({ minimum: 1, maximum: L.trustStep, default: DEFAULT_TRUST.maxStep })),
    labels: T.Optional(
      T.Array(TrustLabelModel, { minItems: 1, maxItems: L.trustLabels, description: "thresholds in ascending order: a value gets the label of the highest min it reaches" }),
    ),
  },
  closed,
);

export const BehaviourModel = T.Object(
  {
    emotions: T.Optional(T.Array(Identifier, { minItems: 1, maxItems: L.emotions, description: `default: ${DEFAULT_EMOTIONS.join(", ")}` })),
    actions: T.Optional(T.Array(ActionModel, { maxItems: L.actions })),
    maxActionsPerTurn: T.Optional(T.Integer({ minimum: 1, maximum: L.maxPerTurn, default: DEFAULT_MAX_ACTIONS_PER_TURN })),
    trust: T.Optional(TrustModel),
    actionGate: T.Optional(
      T.Number({
        exclusiveMinimum: 0,
        maximum: 1,
        description: `the least probability the model must give the offered actions together, against "none", for the turn to act (local engine, with the server's actionGate on); absent: the server's default, ${DEFAULT_ACTION_GATE}`,
      }),
    ),
  },
  { ...closed, title: "behaviour", description: "emotions, actions and trust the mind returns with each reply (metadata.behaviour)" },
);

export type BehaviourInput = Static<typeof BehaviourModel>;
export type ActionInput = Static<typeof ActionModel>;
export type ParamInput = Static<typeof ParamModel>;
export type TrustInput = Static<typeof TrustModel>;
