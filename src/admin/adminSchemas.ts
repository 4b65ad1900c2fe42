import { t } from "elysia";
import { BehaviourModel } from "../behaviour/behaviourModel.ts";
import { MAX_SENTENCES_LIMIT } from "../lore/minds/responseConfig.ts";

const S = (max: number) => t.String({ maxLength: max });
const NS = (max: number) => t.Union([t.String({ maxLength: max }), t.Null()]);
const strict = { additionalProperties: false } as const;
/** A document timer: turns of a conversation (src/lore/documents/documentGate.ts), or null. */
const Timer = t.Union([t.Number({ minimum: 0, maximum: 1000, multipleOf: 1 }), t.Null()]);

/** Hints or restrictions: a plain line (always in the static prompt) or {text, when} (in the turn's part while true). */
const MindLines = (what: string) =>
  t.Array(
    // text and when are both required; the service names a missing one by its path (hints[1].when: required …)
    t.Union([S(1000), t.Object({ text: t.Optional(S(1000)), when: t.Optional(S(1000)) }, strict)]),
    { maxItems: 100, description: `${what}: a line, or {text, when} (both required) that applies only while the condition holds` },
  );

/** Request bodies of the admin API (authoring). The services re-check every rule for the CLI and packs. */
export const MindBody = t.Object(
  {
    key: t.Optional(NS(200)),
    entityName: S(200),
    personality: S(20000),
    backstory: t.Optional(NS(100000)),
    backstorySummary: t.Optional(NS(20000)),
    role: t.Optional(NS(200)),
    speakingStyle: t.Optional(NS(20000)),
    hints: t.Optional(MindLines("things the mind tends to do")),
    restrictions: t.Optional(MindLines("rules the mind never breaks")),
    locationId: t.Optional(NS(100)),
    knowledgeTags: t.Optional(t.Array(S(100), { maxItems: 200, description: "tag names" })),
    knowledge: t.Optional(
      t.Array(t.Object({ tag: S(100), when: S(1000) }, strict), {
        maxItems: 100,
        description: "conditional knowledge: each tag opens only while its condition on world and player state holds",
      }),
    ),
    knowledgeDescription: t.Optional(NS(20000)),
    responseConfig: t.Optional(
      t.Object(
        {
          verbosity: t.Optional(t.Union([t.Literal("terse"), t.Literal("balanced"), t.Literal("verbose")])),
          maxTokens: t.Optional(t.Union([t.Integer({ minimum: 1, maximum: 2048 }), t.Null()])),
          temperature: t.Optional(t.Union([t.Number({ minimum: 0, maximum: 2 }), t.Null()])),
          maxSentences: t.Optional(t.Union([t.Integer({ minimum: 1, maximum: MAX_SENTENCES_LIMIT }), t.Null()])),
        },
        strict,
      ),
    ),
    behaviour: t.Optional(t.Union([BehaviourModel, t.Null()], { description: "emotions, actions and trust (null removes them)" })),
  },
  strict,
);

export const TagBody = t.Object({ name: S(100), color: t.Optional(NS(7)) }, strict);

export const LocationBody = t.Object(
  { key: t.Optional(NS(200)), name: S(200), description: t.Optional(NS(20000)), documentId: t.Optional(NS(100)) },
  strict,
);

export const RelationshipTypeBody = t.Object(
  {
    key: t.Optional(NS(200)),
    name: S(200),
    description: t.Optional(NS(20000)),
    color: S(7),
    isSymmetric: t.Optional(t.Boolean()),
    inverseTypeId: t.Optional(NS(100)),
    conflictsWithBuiltIn: t.Optional(t.Array(S(50))),
    conflictsWithCustom: t.Optional(t.Array(S(100))),
  },
  strict,
);

export const RelationshipBody = t.Object(
  {
    key: t.Optional(NS(200)),
    fromEntityId: S(100),
    toEntityId: S(100),
    type: t.Optional(NS(50)),
    customTypeId: t.Optional(NS(100)),
    description: t.Optional(NS(20000)),
  },
  strict,
);

export const DocumentBody = t.Object(
  {
    key: t.Optional(NS(200)),
    name: S(200),
    content: t.String({ maxLength: 2_000_000 }),
    tags: t.Optional(t.Array(S(100), { maxItems: 200, description: "tag names" })),
    locationId: t.Optional(NS(100)),
    when: t.Optional(NS(1000)),
    sticky: t.Optional(Timer),
    cooldown: t.Optional(Timer),
    delay: t.Optional(Timer),
    secret: t.Optional(t.Boolean({ description: "a secret of the minds that know it: used to stay consistent, never volunteered" })),
    // a secret's condition on world and player state: while it holds, the secret may be told; null: kept always
    reveal: t.Optional(NS(1000)),
  },
  strict,
);

export const ProjectBody = t.Object(
  { name: S(200), teamId: t.Optional(t.String()), monthlyCredits: t.Optional(t.Number({ minimum: 0 })) },
  strict,
);

export const KeyBody = t.Object(
  { type: t.Union([t.Literal("server"), t.Literal("editor")]), name: t.Optional(NS(200)) },
  strict,
);

export const SettingsBody = t.Object(
  {
    projectName: t.Optional(S(200)),
    longTermMemoryEnabled: t.Optional(t.Boolean()),
    maxSessionLength: t.Optional(t.Integer({ minimum: 1, maximum: 1000 })),
    maxSessionTokens: t.Optional(t.Integer({ minimum: 100, maximum: 10_000_000 })),
    enhancedMemoryRetrieval: t.Optional(t.Boolean()),
  },
  strict,
);
