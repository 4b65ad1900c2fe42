import { t } from "elysia";
import { Nullable, PaginationSchema } from "../http/commonSchemas.ts";

const Ref = t.Object({ id: t.String(), name: t.String() });
const Timestamps = { createdAt: t.String(), updatedAt: t.String() };

export const MindSchema = t.Object({
  id: t.String(),
  entityName: t.String(),
  personality: t.String(),
  backstory: Nullable(t.String()),
  backstorySummary: Nullable(t.String()),
  role: Nullable(t.String()),
  speakingStyle: Nullable(t.String()),
  hints: t.Array(t.String()),
  restrictions: t.Array(t.String()),
  locationId: Nullable(t.String()),
  location: Nullable(Ref),
  knowledgeTags: t.Array(t.String()),
  knowledgeDescription: t.String(),
  computedFilter: t.Object({ tags: t.Array(t.String()), documentCount: t.Integer(), chunkCount: t.Integer() }),
  responseConfig: t.Object({
    verbosity: t.Union([t.Literal("terse"), t.Literal("balanced"), t.Literal("verbose")]),
    maxTokens: t.Integer(),
    temperature: t.Number(),
    maxSentences: t.Integer({ description: "sentences a reply may have (terse 2, balanced 3, verbose 5 unless set)" }),
  }),
  buildCreditsUsed: t.Number(),
  interactionCount: t.Integer(),
  relationshipCount: t.Integer(),
  ...Timestamps,
});

const TagBase = { id: t.String(), name: t.String(), color: Nullable(t.String()), documentCount: t.Integer() };
export const TagSchema = t.Object({ ...TagBase, isDefault: t.Boolean() });
export const PlainTagSchema = t.Object(TagBase);

export const LocationSchema = t.Object({
  id: t.String(),
  name: t.String(),
  description: Nullable(t.String()),
  documentId: Nullable(t.String()),
  document: Nullable(Ref),
  entityMindCount: t.Integer(),
  ...Timestamps,
});

const EntityRef = t.Object({ id: t.String(), entityName: t.String(), location: Nullable(Ref) });
export const RelationshipSchema = t.Object({
  id: t.String(),
  type: Nullable(t.String()),
  customTypeId: Nullable(t.String()),
  customType: Nullable(t.Object({ id: t.String(), name: t.String(), color: t.String() })),
  description: Nullable(t.String()),
  fromEntity: EntityRef,
  toEntity: EntityRef,
  ...Timestamps,
});

export const RelationshipTypeSchema = t.Object({
  id: t.String(),
  name: t.String(),
  description: Nullable(t.String()),
  color: t.String(),
  isSymmetric: t.Boolean(),
  inverseTypeId: Nullable(t.String()),
  conflictsWithBuiltIn: t.Array(t.String()),
  conflictsWithCustom: t.Array(t.String()),
  usageCount: t.Integer(),
  ...Timestamps,
});

export const DocumentStatusSchema = t.Union(
  [t.Literal("PENDING"), t.Literal("PROCESSING"), t.Literal("COMPLETED"), t.Literal("FAILED")],
  { error: "status: must be one of PENDING, PROCESSING, COMPLETED, FAILED" },
);

export const DocumentListItemSchema = t.Object({
  id: t.String(),
  name: t.String(),
  status: DocumentStatusSchema,
  chunkCount: t.Integer(),
  ...Timestamps,
  processedAt: Nullable(t.String()),
  tags: t.Array(t.Object({ id: t.String(), name: t.String(), color: Nullable(t.String()), isDefault: t.Boolean() })),
});

export const DocumentFullSchema = t.Object({
  id: t.String(),
  name: t.String(),
  content: t.String(),
  status: DocumentStatusSchema,
  chunkCount: t.Integer(),
  chunks: t.Array(t.Object({ id: t.String(), content: t.String(), chunkIndex: t.Integer(), tags: t.Array(t.String()) })),
  tags: t.Array(Ref),
  location: Nullable(Ref),
  ...Timestamps,
  processedAt: Nullable(t.String()),
});

/** The admin API's mind: the spec's fields and its conditional knowledge. */
const AdminMindLines = t.Array(t.Union([t.String(), t.Object({ text: t.String(), when: t.String() })]), {
  description: "a line every player's prompt holds, or {text, when}: a line that applies only while its condition holds",
});

export const AdminMindSchema = t.Composite([
  t.Omit(MindSchema, ["hints", "restrictions"]),
  t.Object({
    hints: AdminMindLines,
    restrictions: AdminMindLines,
    knowledge: t.Array(t.Object({ tag: t.String(), when: t.String() }), {
      description: "conditional knowledge: each tag opens only while its condition on world and player state holds (knowledgeTags are always known)",
    }),
  }),
]);

/** The admin API's document: the spec's full form and when it may reach a prompt. */
export const AdminDocumentSchema = t.Composite([
  DocumentFullSchema,
  t.Object({
    when: Nullable(t.String({ description: "the condition on world and player state under which the document may reach a prompt; null: always" })),
    sticky: Nullable(t.Integer({ description: "turns the document stays in a conversation after it appeared" })),
    cooldown: Nullable(t.Integer({ description: "turns after that before it may appear again" })),
    delay: Nullable(t.Integer({ description: "turns a conversation must have had before it may appear" })),
    secret: t.Boolean({ description: "a secret of the minds that know it: in their prompts as theirs to keep, never volunteered" }),
    reveal: Nullable(t.String({ description: "a secret's condition on world and player state: while it holds, the secret is told like any other note; null: kept always" })),
  }),
]);

export const SettingsSchema = t.Object({
  projectName: Nullable(t.String()),
  longTermMemoryEnabled: t.Boolean(),
  maxSessionLength: t.Integer(),
  maxSessionTokens: t.Integer(),
  enhancedMemoryRetrieval: t.Boolean(),
});

export { PaginationSchema };
