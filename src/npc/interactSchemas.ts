import { t } from "elysia";
import { Nullable } from "../http/commonSchemas.ts";

/** Swagger only: the route validates the body itself, in the spec's order of precedence, with its exact messages. */
export const InteractBodyDoc = t.Object({
  text: t.String({ minLength: 1, maxLength: 2000 }),
  entityMindId: t.String(),
  playerId: t.String({ maxLength: 255 }),
  context: t.Optional(
    t.Object({
      location: t.Optional(t.String({ maxLength: 200 })),
      locationDetails: t.Optional(t.String({ maxLength: 200 })),
      timeOfDay: t.Optional(t.String({ maxLength: 200 })),
      weather: t.Optional(t.String({ maxLength: 200 })),
      atmosphere: t.Optional(t.String({ maxLength: 200 })),
      situation: t.Optional(t.String({ maxLength: 200 })),
      npcMood: t.Optional(t.String({ maxLength: 200 })),
      npcActivity: t.Optional(t.String({ maxLength: 200 })),
      playerAppearance: t.Optional(t.String({ maxLength: 200 })),
      playerReputation: t.Optional(t.String({ maxLength: 200 })),
      custom: t.Optional(t.String({ maxLength: 500 })),
      playerVisibleItems: t.Optional(t.Array(t.String({ maxLength: 100 }), { maxItems: 10 })),
      nearbyCharacters: t.Optional(t.Array(t.String({ maxLength: 100 }), { maxItems: 10 })),
      nearbyObjects: t.Optional(t.Array(t.String({ maxLength: 100 }), { maxItems: 10 })),
      recentEvents: t.Optional(t.Array(t.String({ maxLength: 100 }), { maxItems: 10 })),
    }),
  ),
  memory: t.Optional(t.Object({ retrieve: t.Optional(t.Boolean({ default: false })) })),
  activeKnowledgeTags: t.Optional(t.Array(t.String({ maxLength: 100 }), { maxItems: 50 })),
  conversationHistory: t.Optional(
    t.Array(t.Object({ role: t.Union([t.Literal("user"), t.Literal("assistant")]), content: t.String({ maxLength: 10000 }) }), { maxItems: 50 }),
  ),
});

export const InteractResponseDoc = t.Object({
  success: t.Literal(true),
  response: t.String(),
  character: t.String(),
  metadata: t.Object({
    memoryCheckpoint: t.Optional(t.Boolean()),
    warnings: t.Optional(t.Array(t.String())),
    creditsUsed: t.Optional(t.Number()),
  }),
});

export { Nullable };
