import type { Db } from "../db/openDatabase.ts";
import { locationExists, locationIdByName } from "../lore/locations/locationStore.ts";
import { mindIdByIdOrKey, mindRows } from "../lore/minds/mindStore.ts";
import { EVENT_LIMITS, type EventBody } from "./eventModels.ts";

/** An event with its location and witnesses resolved to ids. */
export interface ResolvedEvent {
  input: EventBody;
  locationId: string | null;
  /** distinct, in the order given, then the location's minds by name */
  witnesses: string[];
  /** the mind that says its line now (react), or null */
  reactor: string | null;
}

/**
 * Resolves each event's location (id or name), listed witnesses (id or key) and, for `witnesses: "location"`
 * or `public`, every mind whose location is the event's. Unknown names are problems (`path: reason`), never
 * skipped: an event the game believes some mind saw must not be recorded as seen by nobody.
 */
export function resolveEvents(db: Db, projectId: string, events: EventBody[], batch: boolean, problems: string[]): ResolvedEvent[] {
  let byLocation: Map<string, string[]> | null = null;
  const mindsAt = (locationId: string) => {
    byLocation ??= groupByLocation(db, projectId);
    return byLocation.get(locationId) ?? [];
  };
  return events.map((e, i) => {
    const at = batch ? `events.${i}.` : "";
    let locationId: string | null = null;
    if (e.location) {
      locationId = locationExists(db, projectId, e.location) ? e.location : locationIdByName(db, projectId, e.location);
      if (!locationId) problems.push(`${at}location: no location '${e.location}' in this project`);
    }
    const witnesses: string[] = [];
    const add = (id: string) => witnesses.includes(id) || witnesses.push(id);
    if (Array.isArray(e.witnesses)) {
      e.witnesses.forEach((w, j) => {
        const id = mindIdByIdOrKey(db, projectId, w);
        if (id) add(id);
        else problems.push(`${at}witnesses.${j}: no Entity Mind '${w}' in this project`);
      });
    }
    if (locationId && (e.witnesses === "location" || e.public)) {
      const present = mindsAt(locationId);
      if (present.length > EVENT_LIMITS.witnessesByLocation) problems.push(`${at}witnesses: ${present.length} minds at the location; at most ${EVENT_LIMITS.witnessesByLocation}`);
      else present.forEach(add);
    }
    let reactor: string | null = null;
    if (typeof e.react === "string") {
      reactor = mindIdByIdOrKey(db, projectId, e.react);
      if (!reactor) problems.push(`${at}react: no Entity Mind '${e.react}' in this project`);
      else if (!witnesses.includes(reactor)) problems.push(`${at}react: '${e.react}' did not witness the event`);
    } else if (e.react === true) {
      reactor = witnesses[0] ?? null;
      if (!reactor) problems.push(`${at}react: the event has no witness to react`);
    }
    return { input: e, locationId, witnesses, reactor };
  });
}

function groupByLocation(db: Db, projectId: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const m of mindRows(db, projectId)) {
    if (!m.location_id) continue;
    const list = out.get(m.location_id) ?? [];
    list.push(m.id);
    out.set(m.location_id, list);
  }
  return out;
}
