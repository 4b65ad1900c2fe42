import { t } from "elysia";

/** The wire error: `{error, ...extra}` (spec, Errors). */
export const ErrorBody = t.Object(
  {
    error: t.String(),
    details: t.Optional(t.Array(t.String())),
  },
  { additionalProperties: true, description: "Error" },
);

export const Nullable = <T extends Parameters<typeof t.Union>[0][number]>(s: T) => t.Union([s, t.Null()]);

/** Error responses shared by every editor endpoint. */
export const editorErrors = {
  400: ErrorBody,
  401: ErrorBody,
} as const;

/** The largest pagination offset accepted (far past any project's row count). */
export const MAX_OFFSET = 1_000_000_000;

export const pageQuery = (defaultLimit: number, maxLimit: number) => ({
  limit: t.Optional(
    t.Integer({
      minimum: 1,
      maximum: maxLimit,
      description: `default ${defaultLimit}, max ${maxLimit}`,
      error: `limit: must be an integer from 1 to ${maxLimit}`,
    }),
  ),
  // Bounded: an offset past 2^53 (1e+20, 1e308) would reach SQLite as a float and fail there.
  offset: t.Optional(
    t.Integer({ minimum: 0, maximum: MAX_OFFSET, description: "default 0", error: `offset: must be an integer from 0 to ${MAX_OFFSET}` }),
  ),
});

export const PaginationSchema = t.Object({
  total: t.Integer(),
  limit: t.Integer(),
  offset: t.Integer(),
  hasMore: t.Boolean(),
});
