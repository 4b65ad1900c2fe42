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

export const pageQuery = (defaultLimit: number, maxLimit: number) => ({
  limit: t.Optional(
    t.Integer({
      minimum: 1,
      maximum: maxLimit,
      description: `default ${defaultLimit}, max ${maxLimit}`,
      error: `limit: must be an integer from 1 to ${maxLimit}`,
    }),
  ),
  offset: t.Optional(t.Integer({ minimum: 0, description: "default 0", error: "offset: must be an integer of 0 or more" })),
});

export const PaginationSchema = t.Object({
  total: t.Integer(),
  limit: t.Integer(),
  offset: t.Integer(),
  hasMore: t.Boolean(),
});
