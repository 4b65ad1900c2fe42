import { Type, type TSchema } from "@sinclair/typebox";
import { BUILT_IN_TYPES } from "../lore/relationships/builtInTypes.ts";
import { LIMITS } from "../lore/validate/fields.ts";
import { MAX_SENTENCES_LIMIT } from "../lore/minds/responseConfig.ts";
import { STATE_KEY_PATTERN, STATE_LIMITS } from "../state/stateKeys.ts";
import { CONDITION_LIMITS } from "../conditions/parseCondition.ts";
import { TIMER_MAX } from "../lore/documents/documentGate.ts";
import { BehaviourModel } from "../behaviour/behaviourModel.ts";
import { EVENT_LIMITS } from "../events/eventModels.ts";
import { CaseSchema, LORE_TEST_LIMITS } from "../loretests/testSchema.ts";

/**
 * The lore pack format (DESIGN.md "Lore pack format"), in one place: the
 * importer checks packs against it (checkShape.ts turns a mismatch into
 * "path: reason" problems, using each node's `problem` text when it has one),
 * the exporter's output validates against it, and it is a plain JSON Schema
 * that editors can use for YAML/JSON completion.
 *
 * Every object is closed (additionalProperties: false): a typo in a pack is a
 * problem, never silently ignored. Optional fields accept null (an empty YAML
 * value) as "not set".
 */

const Opt = <T extends TSchema>(s: T) => Type.Optional(Type.Union([s, Type.Null()]));
const closed = { additionalProperties: false } as const;

/** Non-blank text of at most `max` characters. */
const Text = (max: number) => Type.String({ maxLength: max, pattern: "\\S", problem: "must be a non-empty string" });

/** Stable identity of a row across imports: no surrounding spaces, one line. */
export const KeySchema = Type.String({
  maxLength: LIMITS.key,
  pattern: "^[^\\s](?:[^\\r\\n]*[^\\s])?$",
  problem: `must be a key: a non-empty, one-line string without surrounding spaces`,
});

const TagName = Type.String({
  maxLength: LIMITS.tagName,
  pattern: "^[^\\s](?:[^\\r\\n]*[^\\s])?$",
  problem: "must be a tag name: a non-empty, one-line string without surrounding spaces",
});

export const ColorSchema = Type.String({ pattern: "^#[0-9a-fA-F]{6}$", problem: "must be a colour like #aa5500" });

/** A condition (src/conditions): CEL syntax over state keys, trust and turn; checked in full on import. */
const Condition = Type.String({ maxLength: CONDITION_LIMITS.chars, pattern: "\\S", problem: "must be a condition such as quest.flood.stage >= 2" });
/** A hint or restriction: a plain line, or `{text, when}` that applies only while the condition holds. */
const MindLines = Type.Array(
  Type.Union([Text(LIMITS.listItemLength), Type.Object({ text: Text(LIMITS.listItemLength), when: Condition }, closed)], {
    problem: "must be a non-empty line or {text, when}",
  }),
  { maxItems: LIMITS.listItems },
);
const Timer = Type.Integer({ minimum: 0, maximum: TIMER_MAX });
const KeyList = (maxItems: number) => Type.Array(KeySchema, { maxItems });
const TagList = Type.Array(TagName, { maxItems: 200 });

export const BuiltInTypeSchema = Type.Union(BUILT_IN_TYPES.map((t) => Type.Literal(t)));

export const SettingsSchema = Type.Object(
  {
    longTermMemoryEnabled: Type.Optional(Type.Boolean()),
    // Ranges as in src/projects/settings.ts (validateSettingsPatch, which the import also applies).
    maxSessionLength: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    maxSessionTokens: Type.Optional(Type.Integer({ minimum: 100, maximum: 10_000_000 })),
    enhancedMemoryRetrieval: Type.Optional(Type.Boolean()),
  },
  closed,
);

export const TagSchema = Type.Object({ name: TagName, color: Opt(ColorSchema) }, closed);

export const LocationSchema = Type.Object(
  {
    key: KeySchema,
    name: Text(LIMITS.name),
    description: Opt(Type.String({ maxLength: LIMITS.text })),
    /** key of the document that describes the place */
    document: Opt(KeySchema),
  },
  closed,
);

export const RelationshipTypeSchema = Type.Object(
  {
    key: KeySchema,
    name: Text(LIMITS.name),
    description: Opt(Type.String({ maxLength: LIMITS.text })),
    color: ColorSchema,
    isSymmetric: Opt(Type.Boolean()),
    /** key of the custom type seen from the other side */
    inverse: Opt(KeySchema),
    conflictsWithBuiltIn: Opt(Type.Array(BuiltInTypeSchema, { maxItems: 50 })),
    /** keys of custom types */
    conflictsWithCustom: Opt(KeyList(100)),
  },
  closed,
);

// Ranges as in src/lore/minds/writeMinds.ts (checkResponseConfig).
export const ResponseConfigSchema = Type.Object(
  {
    verbosity: Opt(Type.Union([Type.Literal("terse"), Type.Literal("balanced"), Type.Literal("verbose")])),
    maxTokens: Opt(Type.Integer({ minimum: 1, maximum: 2048 })),
    temperature: Opt(Type.Number({ minimum: 0, maximum: 2 })),
    /** sentences a reply may have (default by verbosity: terse 2, balanced 3, verbose 5) */
    maxSentences: Opt(Type.Integer({ minimum: 1, maximum: MAX_SENTENCES_LIMIT })),
  },
  closed,
);

export const MindSchema = Type.Object(
  {
    key: KeySchema,
    entityName: Text(LIMITS.name),
    personality: Text(LIMITS.text),
    backstory: Opt(Type.String({ maxLength: LIMITS.longText })),
    backstorySummary: Opt(Type.String({ maxLength: LIMITS.text })),
    role: Opt(Type.String({ maxLength: LIMITS.name })),
    speakingStyle: Opt(Type.String({ maxLength: LIMITS.text })),
    hints: Opt(MindLines),
    restrictions: Opt(MindLines),
    /** location key */
    location: Opt(KeySchema),
    /** tag names */
    knowledgeTags: Opt(TagList),
    /** tags known only while a condition on world and player state holds */
    knowledge: Opt(Type.Array(Type.Object({ tag: TagName, when: Condition }, closed), { maxItems: 100 })),
    knowledgeDescription: Opt(Type.String({ maxLength: LIMITS.text })),
    responseConfig: Opt(ResponseConfigSchema),
    /** emotions, actions and trust (src/behaviour/behaviourModel.ts) */
    behaviour: Opt(BehaviourModel),
  },
  closed,
);

/** Exactly one of type (built-in) and customType (a custom type's key); from/to are mind keys. */
export const RelationshipSchema = Type.Object(
  {
    key: Opt(KeySchema),
    from: KeySchema,
    to: KeySchema,
    type: Opt(BuiltInTypeSchema),
    customType: Opt(KeySchema),
    description: Opt(Type.String({ maxLength: LIMITS.text })),
  },
  closed,
);

export const DocumentSchema = Type.Object(
  {
    key: KeySchema,
    name: Text(LIMITS.name),
    tags: Opt(TagList),
    /** location key */
    location: Opt(KeySchema),
    /** the condition under which the document may reach a prompt */
    when: Opt(Condition),
    /** timed activation, in turns of a conversation */
    sticky: Opt(Timer),
    cooldown: Opt(Timer),
    delay: Opt(Timer),
    /** a secret of the minds that know it: known, used to stay consistent, never volunteered */
    secret: Opt(Type.Boolean()),
    /** a secret's condition on world and player state: while it holds, the secret may be told */
    reveal: Opt(Condition),
    content: Type.String({ maxLength: LIMITS.documentContent }),
  },
  closed,
);

/** A moment as an ISO 8601 UTC timestamp, e.g. 2026-05-01T12:00:00Z. */
const Instant = Type.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,3})?Z$", problem: "must be a UTC timestamp such as 2026-05-01T12:00:00Z" });
const Importance = Type.Integer({ minimum: 1, maximum: 10, problem: "must be a whole number from 1 to 10" });

/** An event of the world's history and who knows it (events about a player are the player's, never in a pack). */
export const EventSchema = Type.Object(
  {
    key: KeySchema,
    type: Type.String({ maxLength: EVENT_LIMITS.typeChars, pattern: "^[A-Za-z0-9][A-Za-z0-9_.:-]*$", problem: "must be an event type such as theft or bridge.fire" }),
    description: Text(EVENT_LIMITS.descriptionChars),
    /** location key */
    location: Opt(KeySchema),
    importance: Opt(Importance),
    /** the game's own time of the event */
    at: Opt(Text(EVENT_LIMITS.gameTimeChars)),
    secret: Opt(Type.Boolean()),
    public: Opt(Type.Boolean()),
    /** when it was recorded (and its witnesses knew it); default: the import's time */
    recordedAt: Opt(Instant),
    /** mind keys: the minds that saw it */
    witnesses: Opt(KeyList(EVENT_LIMITS.witnesses)),
    /** minds that heard of it through gossip */
    heardBy: Opt(
      Type.Array(
        Type.Object(
          {
            mind: KeySchema,
            /** the mind that told it (absent: its teller is gone) */
            from: Opt(KeySchema),
            hop: Type.Integer({ minimum: 1, maximum: 100, problem: "must be a whole number from 1 (heard from a witness) to 100" }),
            importance: Opt(Importance),
            knownAt: Opt(Instant),
          },
          closed,
        ),
        { maxItems: EVENT_LIMITS.witnessesByLocation },
      ),
    ),
  },
  closed,
);

const StateKey = Type.String({ pattern: STATE_KEY_PATTERN, problem: "must be a state key such as quest.flood.stage" });
const StateValueSchema = Type.Union([Type.Boolean(), Type.Number(), Type.String({ maxLength: STATE_LIMITS.stringChars })], {
  problem: `must be true or false, a number or a string of at most ${STATE_LIMITS.stringChars} characters`,
});

/** The project's state declarations (src/state/stateSchema.ts applies the rest of the rules on import). */
export const StateSectionSchema = Type.Object(
  {
    /** key → {type, default (what the world reads until it sets the key), enum} */
    stateKeys: Opt(
      Type.Record(
        StateKey,
        Type.Object(
          {
            type: Type.Union([Type.Literal("boolean"), Type.Literal("number"), Type.Literal("string")]),
            default: Opt(StateValueSchema),
            enum: Opt(Type.Array(StateValueSchema, { maxItems: STATE_LIMITS.enumValues })),
          },
          closed,
        ),
        { maxProperties: STATE_LIMITS.declaredKeys, keyProblem: "is not a state key: lower-case dotted names such as quest.flood.stage" },
      ),
    ),
    /** key prefixes: setting pose.sitting clears the other pose.* keys */
    exclusiveGroups: Opt(Type.Array(StateKey, { maxItems: STATE_LIMITS.exclusiveGroups })),
  },
  closed,
);

export const PackSchema = Type.Object(
  {
    project: Opt(Type.Object({ name: Text(LIMITS.name) }, closed)),
    settings: Opt(SettingsSchema),
    state: Opt(StateSectionSchema),
    tags: Opt(Type.Array(TagSchema)),
    locations: Opt(Type.Array(LocationSchema)),
    relationshipTypes: Opt(Type.Array(RelationshipTypeSchema)),
    minds: Opt(Type.Array(MindSchema)),
    relationships: Opt(Type.Array(RelationshipSchema)),
    documents: Opt(Type.Array(DocumentSchema)),
    /** lore tests written next to the lore (src/loretests): checked on import, run by `lorehold test` */
    tests: Opt(Type.Array(CaseSchema, { maxItems: LORE_TEST_LIMITS.cases })),
    events: Opt(Type.Array(EventSchema)),
  },
  { ...closed, title: "Lorehold lore pack" },
);

/** PackSchema as a JSON Schema file (examples/lore-pack.schema.json), for editors' YAML/JSON completion. */
export function packJsonSchema(): string {
  return `${JSON.stringify({ $schema: "http://json-schema.org/draft-07/schema#", ...PackSchema }, null, 2)}\n`;
}
