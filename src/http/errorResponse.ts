import { ValidationError } from "elysia";
import { ApiError } from "../core/errors.ts";
import type { Logger } from "../ops/logger.ts";

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

/** "limit: Expected integer" lines from a schema validation failure. */
export function validationDetails(error: ValidationError): string[] {
  // Schemas carry their own wording ({error: "limit: ..."}): prefer it to TypeBox's generic text.
  if (typeof error.customError === "string") return [error.customError];
  // One line per field: TypeBox reports a missing field twice (required, then wrong type).
  const byPath = new Map<string, string>();
  for (const e of closestBranches(error.all as UnionError[])) {
    const path = "path" in e && e.path ? String(e.path).replace(/^\//, "").replaceAll("/", ".") : "";
    let message = "message" in e ? String(e.message) : "invalid";
    // Coercing schemas (numbers in query strings) fail as "Expected union value": say what was wanted.
    const wanted = "schema" in e ? describeSchema(e.schema as Record<string, unknown>) : null;
    if (wanted && /union|Expected (integer|number|string|boolean|array|object)/.test(message)) message = `must be ${wanted}`;
    if (/Unexpected property/.test(message)) message = "unknown field";
    else if (/required property/.test(message)) message = wanted ? `required, ${wanted}` : "required";
    if (!byPath.has(path)) byPath.set(path, path ? `${path}: ${message}` : message);
  }
  return [...byPath.values()];
}

interface UnionError {
  path?: string;
  message?: string;
  schema?: unknown;
  /** a union's failure: each branch's own errors */
  errors?: Iterable<UnionError>[];
}

/**
 * A value that fits no branch of a union is reported by the branch it comes closest to: one whose type it has
 * (no error at the union's own path), with the fewest errors, expanded the same way. "params.line.maxLength:
 * required" says more than "params.line: must be an object". Without such a branch the union's error stays.
 */
function closestBranches(errors: UnionError[]): UnionError[] {
  return errors.flatMap((e) => {
    if (!e.errors?.length) return [e];
    const branches = e.errors.map((it) => [...it]).filter((b) => b.length > 0 && b.every((x) => x.path !== e.path));
    if (branches.length === 0) return [e];
    // Fewest fields wrong (TypeBox may report one field twice); the first branch of equals.
    const fields = (b: UnionError[]) => new Set(b.map((x) => x.path)).size;
    const best = branches.reduce((a, b) => (fields(b) < fields(a) ? b : a));
    return closestBranches(best);
  });
}

/** "an integer from 1 to 1000", "one of a, b", "a string of at most 200 characters" … for a TypeBox schema. */
function describeSchema(schema: Record<string, unknown> | undefined): string | null {
  if (!schema) return null;
  const variants = Array.isArray(schema.anyOf) ? (schema.anyOf as Record<string, unknown>[]) : [schema];
  const consts = variants.filter((v) => "const" in v).map((v) => String(v.const));
  if (consts.length === variants.length && consts.length > 0) return `one of ${consts.join(", ")}`;
  const v = variants.find((x) => x.type === "integer" || x.type === "number") ?? variants.find((x) => typeof x.type === "string");
  if (!v) return null;
  const range = (lo: unknown, hi: unknown) =>
    lo !== undefined && hi !== undefined ? ` from ${lo} to ${hi}` : lo !== undefined ? ` of ${lo} or more` : hi !== undefined ? ` of at most ${hi}` : "";
  switch (v.type) {
    case "integer":
      return `an integer${range(v.minimum, v.maximum)}`;
    case "number":
      // an open lower bound (a share or a probability that must be more than 0)
      if (v.exclusiveMinimum !== undefined) return `a number above ${v.exclusiveMinimum}${v.maximum !== undefined ? ` and at most ${v.maximum}` : ""}`;
      return `a number${range(v.minimum, v.maximum)}`;
    case "string":
      return v.maxLength !== undefined ? `a string of at most ${v.maxLength} characters` : "a string";
    case "boolean":
      return "true or false";
    case "array":
      return v.maxItems !== undefined ? `a list of at most ${v.maxItems} items` : "a list";
    case "object":
      return "an object";
  }
  return null;
}

/**
 * The one place where errors become wire responses: `{error, ...extra}`.
 * Raw causes are logged, never sent (no stack traces on the wire).
 */
export function errorToResponse(code: string | number, error: unknown, log: Logger, requestId?: string): Response {
  if (error instanceof ApiError) return jsonResponse(error.status, error.toBody(), error.headers);
  switch (code) {
    case "NOT_FOUND":
      return jsonResponse(404, { error: "Not found" });
    case "PARSE":
      return jsonResponse(400, { error: "Invalid request", details: ["body: malformed JSON"] });
    case "VALIDATION":
      if ((error as ValidationError).type === "response") break; // our bug, not the caller's: a 500 below
      return jsonResponse(400, { error: "Invalid request", details: validationDetails(error as ValidationError) });
    case "INVALID_COOKIE_SIGNATURE":
    case "INVALID_FILE_TYPE":
      return jsonResponse(400, { error: "Invalid request" });
  }
  const status = typeof (error as { status?: unknown })?.status === "number" ? (error as { status: number }).status : 500;
  if (status >= 400 && status < 500) return jsonResponse(status, { error: "Invalid request" });
  log.error("unhandled error", { requestId, code: String(code), err: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  return jsonResponse(500, { error: "Internal server error" });
}
