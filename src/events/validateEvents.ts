import { Value } from "@sinclair/typebox/value";
import { ApiError } from "../core/errors.ts";
import { isPlainObject } from "../lore/validate/fields.ts";
import { EVENT_LIMITS, EventBatchModel, EventModel, type EventBody } from "./eventModels.ts";

/** At most this many problems are listed (a batch of 100 bad events would otherwise answer a wall of text). */
const MAX_DETAILS = 20;

/**
 * The body of POST /v1/events checked against its TypeBox model: one event, or `{events: [...]}`. Every
 * problem is listed as `path: reason` (400 `Invalid request`); nothing is written unless all of it is valid.
 */
export function validateEvents(body: unknown): { events: EventBody[]; batch: boolean } {
  if (!isPlainObject(body)) throw new ApiError(400, "Invalid request", { details: ["body: must be a JSON object (one event, or {events: [...]})"] });
  const batch = "events" in body;
  const model = batch ? EventBatchModel : EventModel;
  if (!Value.Check(model, body)) {
    const details: string[] = [];
    for (const e of Value.Errors(model, body)) {
      const path = e.path === "" ? "body" : e.path.slice(1).replaceAll("/", ".");
      const line = `${path}: ${describe(e.message, e.path, e.value)}`;
      if (!details.includes(line)) details.push(line);
      if (details.length >= MAX_DETAILS) break;
    }
    throw new ApiError(400, "Invalid request", { details });
  }
  const events = batch ? (body as { events: EventBody[] }).events : [body as EventBody];
  const problems: string[] = [];
  events.forEach((e, i) => {
    const at = batch ? `events.${i}.` : "";
    if (e.description.trim() === "") problems.push(`${at}description: must not be blank`);
    if (e.playerState && !e.playerId) problems.push(`${at}playerState: needs playerId`);
    if ((e.witnesses === "location" || e.public) && !e.location) problems.push(`${at}location: required with witnesses "location" or public`);
    if (batch && e.react !== undefined && e.react !== false) problems.push(`${at}react: only a single event may ask for a reaction (send it alone, or use POST /v1/npc/{mindId}/react)`);
  });
  if (problems.length) throw new ApiError(400, "Invalid request", { details: problems.slice(0, MAX_DETAILS) });
  return { events, batch };
}

/** TypeBox's messages, with the field's own limits where they help. */
function describe(message: string, path: string, value: unknown): string {
  if (/Unexpected property/.test(message)) return "unknown field";
  if (path.endsWith("/description") && typeof value === "string") return `1 to ${EVENT_LIMITS.descriptionChars} characters`;
  if (path === "/events" && Array.isArray(value)) return `1 to ${EVENT_LIMITS.batch} events`;
  return message.toLowerCase();
}
