import { t } from "elysia";
import { Nullable } from "../http/commonSchemas.ts";
import { ALLOWED_EXTENSIONS } from "./extract/index.ts";
import { SCANNER_LIMITS } from "./limits.ts";

const Hash = (field: string) =>
  t.String({ pattern: "^[0-9a-fA-F]{64}$", description: "SHA-256 of the file's bytes, hex", error: `${field}: must be a SHA-256 as 64 hexadecimal characters` });

export const ScanStatusSchema = t.Union([
  t.Literal("PENDING_UPLOAD"),
  t.Literal("QUEUED"),
  t.Literal("PROCESSING"),
  t.Literal("COMPLETED"),
  t.Literal("FAILED"),
]);

export const EstimateBody = t.Object({
  files: t.Array(
    t.Object({
      filename: t.String({ minLength: 1, maxLength: SCANNER_LIMITS.relativePathChars }),
      sizeBytes: t.Integer({ minimum: 0, maximum: SCANNER_LIMITS.maxArchiveBytes }),
    }),
    { minItems: 1, maxItems: SCANNER_LIMITS.maxFiles },
  ),
});

export const EstimateResponse = t.Object({
  estimatedMicrocredits: t.Integer(),
  estimatedCredits: t.Number(),
  reservedMicrocredits: t.Integer({ description: "amount reserved at confirm; refunded down to actual cost" }),
  reservedCredits: t.Number(),
  availableCredits: t.Number({ description: "team balance" }),
  perFile: t.Array(t.Object({ filename: t.String(), estimatedMicrocredits: t.Integer() })),
  estimateType: t.Union([t.Literal("rolling_average"), t.Literal("minimum_balance")]),
  message: t.String(),
});

/**
 * The submit-archive body's one model: Swagger shows it, and validateSubmission
 * checks the same rules in the spec's order of errors (400 `Invalid manifest`
 * listing every problem, then `Archive too large`, then file types) and returns
 * its static type.
 */
export const SubmitBody = t.Object({
  files: t.Array(
    t.Object({
      filename: t.String({ minLength: 1, maxLength: SCANNER_LIMITS.filenameChars }),
      relativePath: t.String({
        minLength: 1,
        maxLength: SCANNER_LIMITS.relativePathChars,
        description: "path inside the archive: relative, forward slashes, no '..'",
      }),
      sizeBytes: t.Integer({ minimum: 0, maximum: SCANNER_LIMITS.maxArchiveBytes }),
      contentHash: Hash("contentHash"),
    }, { additionalProperties: false }),
    { minItems: 1, maxItems: SCANNER_LIMITS.maxFiles },
  ),
  totalSizeBytes: t.Integer({ minimum: 1, maximum: SCANNER_LIMITS.maxArchiveBytes, description: "archive size, max 200 MB" }),
  userContext: t.Optional(Nullable(t.String({ maxLength: SCANNER_LIMITS.userContextChars }))),
  idempotencyKey: t.Optional(Nullable(t.String({ minLength: 1, maxLength: SCANNER_LIMITS.idempotencyKeyChars }))),
}, { description: `Allowed extensions: ${ALLOWED_EXTENSIONS.join(" ")}`, additionalProperties: false });

/** One file of a submitted (and stored) manifest. */
export type ManifestFile = (typeof SubmitBody.static)["files"][number];

export const SubmitResponse = t.Object({
  jobId: t.String(),
  status: ScanStatusSchema,
  uploadUrl: t.String({ description: "PUT the ZIP here with Content-Type: application/zip (no API key)" }),
  expiresIn: t.Integer({ description: "seconds the upload URL stays valid" }),
  totalFiles: t.Integer(),
  estimatedCredits: t.Number(),
  deduplicated: t.Optional(t.Literal(true)),
});

export const UploadResponse = t.Object({
  jobId: t.String(),
  status: t.Literal("PENDING_UPLOAD"),
  sizeBytes: t.Integer(),
  message: t.String(),
});

export const JobIdBody = t.Object({ jobId: t.String({ minLength: 1, error: "jobId: required, a string" }) });

export const ConfirmResponse = t.Object({
  jobId: t.String(),
  status: t.Literal("QUEUED"),
  totalFiles: t.Integer(),
  estimatedCredits: t.Number({ description: "reserved amount" }),
});

export const CancelResponse = t.Object({ jobId: t.String(), status: t.Literal("FAILED"), message: t.String() });

const listFields = {
  jobId: t.String(),
  status: ScanStatusSchema,
  totalFiles: t.Integer(),
  completedFiles: t.Integer(),
  failedFiles: t.Integer(),
  createdAt: t.String(),
  startedAt: Nullable(t.String()),
  completedAt: Nullable(t.String()),
  committedAt: Nullable(t.String()),
};

export const JobListResponse = t.Object({ jobs: t.Array(t.Object(listFields)) });

export const ExtractionSchema = t.Object({
  id: t.String(),
  title: t.String(),
  tags: t.Array(t.String()),
  location: Nullable(t.String()),
  confidence: t.Number({ minimum: 0, maximum: 1 }),
  contentPreview: t.String({ description: "first 200 characters" }),
  sourceFiles: t.Array(t.String()),
  kind: t.String({ description: "character, location, item, faction, event, dialogue or other" }),
  group: t.String({ description: "the entity or scene the extraction belongs to; equal groups are reviewed together" }),
  reasons: t.Record(t.String(), t.String(), { description: "why each tag (and `location`) matched" }),
  speakers: t.Array(t.String(), { description: "who speaks in it (dialogue), most lines first" }),
  variants: t.Array(t.Object({ language: t.String(), sourceFile: t.String() }), { description: "other languages' versions" }),
});

export const ReviewGroupSchema = t.Object({
  group: t.String(),
  kind: t.String(),
  title: t.String(),
  count: t.Integer(),
  hiddenCount: t.Integer(),
  hidden: t.Boolean(),
  confidence: t.Number(),
  sourceFiles: t.Array(t.String()),
  extractionIds: t.Optional(t.Array(t.String())),
});

export const JobDetailResponse = t.Object({
  ...listFields,
  estimatedCredits: t.Number({ description: "reserved amount after confirm (the estimate before)" }),
  actualCredits: t.Number(),
  creditAdjustment: t.Number({ description: "positive means refunded after reconciliation" }),
  adjustmentMessage: t.String(),
  errorMessage: Nullable(t.String()),
  extractions: t.Array(ExtractionSchema),
  skippedContent: t.Array(t.Object({ section: t.String(), reason: t.String(), sourceFile: t.String() })),
  reviewGroups: t.Optional(t.Array(ReviewGroupSchema)),
  knowledgeSuggestions: t.Optional(
    t.Array(
      t.Object({
        speaker: t.String(),
        scenes: t.Integer(),
        tags: t.Array(t.Object({ tag: t.String(), scenes: t.Integer() })),
        locations: t.Array(t.Object({ location: t.String(), scenes: t.Integer() })),
      }),
      { description: "per character: the project tags and locations of the scenes it speaks in (suggested knowledge tags)" },
    ),
  ),
});

/** Whole groups, source files, folders or kinds of a job's extractions (per-group review). */
const ReviewSelection = t.Object(
  {
    groups: t.Optional(t.Array(t.String(), { maxItems: 10_000 })),
    files: t.Optional(t.Array(t.String(), { maxItems: 10_000 })),
    folders: t.Optional(t.Array(t.String(), { maxItems: 1_000 })),
    kinds: t.Optional(t.Array(t.String(), { maxItems: 20 })),
  },
  { additionalProperties: false, error: "accept/reject: an object of groups, files, folders, kinds (lists of strings)" },
);

export const CommitBody = t.Object({
  jobId: t.String({ minLength: 1, error: "jobId: required, a string" }),
  // May be empty only with an `accept` selection (checked in commit.ts, same 400).
  extractionIds: t.Array(t.String(), { maxItems: 10_000, error: "extractionIds: required, a list of extraction ids" }),
  accept: t.Optional(ReviewSelection),
  reject: t.Optional(ReviewSelection),
});

export const JobDetailQuery = t.Object({
  groups: t.Optional(t.String({ description: "true: add reviewGroups (per-group counts and ids)" })),
  hide: t.Optional(t.String({ description: "comma-separated kind:<kind>, group:<group>, file:<path>, folder:<path>" })),
});

export const CommitResponse = t.Object({ committed: t.Integer(), documentIds: t.Array(t.String()) });

export const RescanBody = t.Object({
  files: t.Array(
    t.Object({ filename: t.String({ minLength: 1, maxLength: SCANNER_LIMITS.relativePathChars }), contentHash: Hash("contentHash") }),
    { maxItems: SCANNER_LIMITS.maxFiles },
  ),
});

export const RescanResponse = t.Object({
  changed: t.Array(t.String()),
  added: t.Array(t.String()),
  deleted: t.Array(t.String()),
  unchanged: t.Array(t.String()),
});
