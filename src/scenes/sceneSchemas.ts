import { Type as T, type Static, type TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { invalidRequest } from "../core/errors.ts";
import { isPlainObject } from "../lore/validate/fields.ts";
import { InteractBody } from "../npc/interactModel.ts";
import { INTERACT_LIMITS as L } from "../npc/interactLimits.ts";

/** The scene bodies: one TypeBox model each (validation, types and the Swagger document). */

export const SCENE_LIMITS = {
  minds: 8,
  maxLines: 6,
  locationChars: L.contextStringChars,
} as const;

const MindId = T.String({ minLength: 1, maxLength: 64 });
const Talkativeness = T.Number({ minimum: 0, maximum: 1, description: "0: speaks only when addressed or asked … 1: speaks up often (default 0.5)" });
export const SceneMindEntry = T.Union([MindId, T.Object({ mindId: MindId, talkativeness: T.Optional(Talkativeness) }, { additionalProperties: false })]);

/** The interact body's `context` object (the same fields and limits): the scene's setting, rendered in every speaker's turn. */
const SceneContextModel = (InteractBody.properties as Record<string, TSchema>).context;

export const CreateSceneBody = T.Object(
  {
    minds: T.Array(SceneMindEntry, { minItems: 1, maxItems: SCENE_LIMITS.minds, description: "mind ids, or {mindId, talkativeness}" }),
    location: T.Optional(T.String({ minLength: 1, maxLength: SCENE_LIMITS.locationChars })),
    playerId: T.Optional(T.String({ minLength: 1, maxLength: L.playerIdChars, description: "the player present: each mind's memory of the scene is kept for this player" })),
    context: T.Optional(SceneContextModel),
  },
  { additionalProperties: false },
);

export const PatchSceneBody = T.Object(
  {
    join: T.Optional(T.Array(SceneMindEntry, { maxItems: SCENE_LIMITS.minds, description: "minds walking in (or a present mind's new talkativeness)" })),
    leave: T.Optional(T.Array(MindId, { maxItems: SCENE_LIMITS.minds, description: "minds walking out: their memory of the scene is checkpointed" })),
  },
  { additionalProperties: false },
);

export const SceneTurnBody = T.Object(
  {
    text: T.Optional(T.String({ minLength: 1, maxLength: L.textChars, pattern: "\\S", description: "the player's line; absent: the minds talk among themselves" })),
    maxLines: T.Optional(T.Integer({ minimum: 1, maximum: SCENE_LIMITS.maxLines, description: "the most lines this turn (default 1)" })),
    speaker: T.Optional(T.String({ minLength: 1, maxLength: 64, description: "a present mind that says the turn's first line" })),
  },
  { additionalProperties: false },
);

export type SceneMindInput = Static<typeof SceneMindEntry>;
export type CreateSceneInput = Static<typeof CreateSceneBody>;
export type PatchSceneInput = Static<typeof PatchSceneBody>;
export type SceneTurnInput = Static<typeof SceneTurnBody>;

/** Checks a body against its model: 400 `Invalid request` with every problem as `path: message`. */
export function checkBody<S extends TSchema>(schema: S, body: unknown): Static<S> {
  if (!isPlainObject(body)) throw invalidRequest("body: must be a JSON object");
  if (!Value.Check(schema, body)) {
    const details = [...Value.Errors(schema, body)].slice(0, 20).map((e) => `${e.path.slice(1).replaceAll("/", ".") || "body"}: ${e.message}`);
    throw invalidRequest(...new Set(details));
  }
  const ctx = (body as { context?: Record<string, unknown> }).context;
  if (ctx) {
    // "the whole context block at 2,000 chars" (the interact rule): every value's characters together.
    const total = Object.values(ctx).reduce<number>((n, v) => n + (typeof v === "string" ? v.length : Array.isArray(v) ? v.join("").length : 0), 0);
    if (total > L.contextTotalChars) throw invalidRequest(`context: too long (max ${L.contextTotalChars} characters overall)`);
  }
  return body as Static<S>;
}

/** Response models (Swagger). */
export const SceneLineView = T.Object({
  mindId: T.String(),
  character: T.String(),
  response: T.String(),
  metadata: T.Object({}, { additionalProperties: true, description: "creditsUsed, warnings, behaviour (as interact) and `why`: {reason, weight?, chance?, relevance?}" }),
});

export const SceneView = T.Object({
  sceneId: T.String(),
  playerId: T.Union([T.String(), T.Null()]),
  context: T.Object({}, { additionalProperties: true }),
  minds: T.Array(T.Object({ mindId: T.String(), character: T.String(), talkativeness: T.Number(), joinedAt: T.String() })),
  lines: T.Array(T.Object({ seq: T.Integer(), mindId: T.Union([T.String(), T.Null()]), character: T.String(), text: T.String(), at: T.String() })),
  turns: T.Integer(),
  createdAt: T.String(),
  lastActiveAt: T.String(),
  expiresAt: T.String(),
});

export const SceneTurnView = T.Object({
  success: T.Literal(true),
  sceneId: T.String(),
  lines: T.Array(SceneLineView),
  metadata: T.Object({}, { additionalProperties: true, description: "cancelled: true when a newer turn cut this one short; stopped: the error that ended it after its first line" }),
});

export const SceneCreatedView = T.Object({ sceneId: T.String() });
export const SceneEndedView = T.Object({ sceneId: T.String(), ended: T.Literal(true), memoryCheckpoints: T.Integer({ description: "minds whose memory of the scene was queued for the summary" }) });
