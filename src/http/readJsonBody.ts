import { ApiError } from "../core/errors.ts";

/**
 * The one JSON body reader for routes that parse their own body (parse:
 * "none", so their validation can answer in the spec's order and words).
 * Malformed JSON is a 400 with `error` as the message the route's spec names
 * (`Invalid request`, or the scanner's `Invalid manifest`).
 */
export async function readJsonBody(request: Request, error = "Invalid request"): Promise<unknown> {
  const text = await request.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, error, { details: ["body: malformed JSON"] });
  }
}
