import { newId } from "../core/ids.ts";
import type { Db } from "../db/openDatabase.ts";
import { isPlainObject, type Problems } from "../lore/validate/fields.ts";
import { mindRows } from "../lore/minds/mindStore.ts";
import { parseJsonColumn } from "../core/json.ts";
import { eventByPackKey, insertPackEvent, touchEvent, updatePackEvent, worldEvents, type EventRow } from "./eventStore.ts";
import { insertWorldMemory, refreshEventWords, updateWorldMemoryKnowledge, worldMemoriesOfWorldEvents, worldMemoryOf } from "./worldMemoryStore.ts";
import { DEFAULT_EVENT_IMPORTANCE } from "./recordEvents.ts";

/**
 * The world's history in a lore pack: events without a player and the world memories of them (who saw each,
 * who heard of it from whom). Events about a player are that player's memories and never leave with a pack.
 * An event is named by its key: the key a pack gave it, or, for one the game reported, its id. An imported
 * mind's memories are left unspread, so gossip carries on from the pack's state (a mind that already knows
 * an event is never told it again, so nothing is duplicated).
 */
export interface EventPlan {
  label: string;
  key: string;
  type: string;
  description: string;
  locationId: string | null;
  importance: number;
  gameTime: string | null;
  secret: boolean;
  public: boolean;
  /** ISO time, or null: the import's time */
  recordedAt: string | null;
  witnesses: string[];
  heard: { mindId: string; toldBy: string | null; hop: number; importance: number | null; knownAt: string | null }[];
}

export interface PackEventEntry {
  key: string;
  type: string;
  description: string;
  location?: string;
  importance?: number;
  at?: string;
  secret?: boolean;
  public?: boolean;
  recordedAt: string;
  witnesses?: string[];
  heardBy?: { mind: string; from?: string; hop: number; importance?: number; knownAt: string }[];
}

type Ref = (path: string, v: unknown) => string | null;
const text = (v: unknown) => (typeof v === "string" ? v.trim() : "");
const instant = (v: unknown, path: string, p: Problems): string | null => {
  if (typeof v !== "string") return null;
  const t = Date.parse(v);
  if (Number.isNaN(t)) {
    p.add(path, "is not a real moment");
    return null;
  }
  return new Date(t).toISOString();
};

/** The pack's `events` section resolved (shape already checked: a wrong field is reported there and skipped here). */
export function planPackEvents(section: unknown, mindRef: Ref, locRef: Ref, p: Problems): EventPlan[] {
  const seen = new Set<string>();
  const plans: EventPlan[] = [];
  (Array.isArray(section) ? section : []).forEach((v, index) => {
    if (!isPlainObject(v) || typeof v.key !== "string") return;
    const path = `events[${index}]`;
    if (seen.has(v.key)) return p.add(`${path}.key`, `duplicate key '${v.key}'`);
    seen.add(v.key);
    const knowers = new Set<string>();
    const once = (id: string | null, at: string): id is string => {
      if (id === null) return false;
      if (knowers.has(id)) return (p.add(at, "this mind already knows the event (a mind is a witness or a hearer once)"), false);
      knowers.add(id);
      return true;
    };
    const witnesses = (Array.isArray(v.witnesses) ? v.witnesses : []).flatMap((k, j) => {
      const id = mindRef(`${path}.witnesses[${j}]`, k);
      return once(id, `${path}.witnesses[${j}]`) ? [id] : [];
    });
    const heard = (Array.isArray(v.heardBy) ? v.heardBy : []).flatMap((h, j) => {
      if (!isPlainObject(h)) return [];
      const at = `${path}.heardBy[${j}]`;
      const mindId = mindRef(`${at}.mind`, h.mind);
      const toldBy = mindRef(`${at}.from`, h.from);
      if (mindId !== null && mindId === toldBy) p.add(`${at}.from`, "a mind does not tell itself");
      if (!once(mindId, `${at}.mind`)) return [];
      return [{ mindId, toldBy, hop: typeof h.hop === "number" ? h.hop : 1, importance: typeof h.importance === "number" ? h.importance : null, knownAt: instant(h.knownAt, `${at}.knownAt`, p) }];
    });
    plans.push({
      label: v.key,
      key: v.key,
      type: text(v.type),
      description: text(v.description),
      locationId: locRef(`${path}.location`, v.location),
      importance: typeof v.importance === "number" ? v.importance : DEFAULT_EVENT_IMPORTANCE,
      gameTime: typeof v.at === "string" ? v.at.trim() : null,
      secret: v.secret === true,
      public: v.public === true,
      recordedAt: instant(v.recordedAt, `${path}.recordedAt`, p),
      witnesses,
      heard,
    });
  });
  return plans;
}

/**
 * Writes the planned events inside the import's transaction; an event or a world memory whose values did not
 * change is not touched, so an unchanged pack writes nothing. Returns each entry's event id by key.
 */
export function writePackEvents(db: Db, projectId: string, plans: EventPlan[], now: string): Record<string, string> {
  const ids: Record<string, string> = {};
  if (!plans.length) return ids;
  const names = new Map(mindRows(db, projectId).map((m) => [m.id, m.entity_name]));
  for (const e of plans) {
    const existing = eventByPackKey(db, projectId, e.key);
    const createdAt = e.recordedAt ?? existing?.created_at ?? now;
    const row: EventRow = {
      id: existing?.id ?? newId("evt"),
      project_id: projectId,
      type: e.type,
      description: e.description,
      location_id: e.locationId,
      player_id: null,
      importance: e.importance,
      game_time: e.gameTime,
      secret: e.secret ? 1 : 0,
      public: e.public ? 1 : 0,
      witnesses: JSON.stringify(e.witnesses),
      created_at: createdAt,
    };
    ids[e.label] = row.id;
    if (!existing) insertPackEvent(db, { ...row, pack_key: e.key });
    let touched = false;
    if (existing && changed(existing, row)) {
      updatePackEvent(db, row, now);
      refreshEventWords(db, row.id, row.type, row.description);
      touched = true;
    }
    const knowers = [
      ...e.witnesses.map((mindId) => ({ mindId, toldBy: null, hop: 0, importance: e.importance, knownAt: createdAt })),
      ...e.heard.map((h) => ({ ...h, importance: h.importance ?? e.importance, knownAt: h.knownAt ?? createdAt })),
    ];
    for (const k of knowers) {
      const had = worldMemoryOf(db, k.mindId, row.id);
      // a teller gone from the project still has its name ("Berta told me…")
      const tellerName = k.toldBy ? (names.get(k.toldBy) ?? null) : k.hop > 0 ? (had?.told_by_name ?? null) : null;
      const told = { importance: k.importance, hop: k.hop, told_by: k.toldBy, told_by_name: tellerName, known_at: k.knownAt };
      if (!had) {
        insertWorldMemory(db, { id: newId("wmem"), project_id: projectId, mind_id: k.mindId, event_id: row.id, player_id: null, memory_id: null, ...told, spread_at: null, created_at: now });
        if (existing && !touched) (touchEvent(db, row.id, now), (touched = true));
      } else if (had.importance !== told.importance || had.hop !== told.hop || had.told_by !== told.told_by || had.told_by_name !== told.told_by_name || had.known_at !== told.known_at) {
        updateWorldMemoryKnowledge(db, { id: had.id, ...told });
        if (!touched) (touchEvent(db, row.id, now), (touched = true));
      }
    }
  }
  return ids;
}

const changed = (a: EventRow, b: EventRow) =>
  (["type", "description", "location_id", "importance", "game_time", "secret", "public", "witnesses", "created_at"] as const).some((f) => a[f] !== b[f]);

/** The project's history as a pack's `events` section: each event under its key, oldest first (then by key, so exports diff cleanly). */
export function exportPackEvents(db: Db, projectId: string, mindKey: (id: string) => string | undefined, locationKey: (id: string | null) => string | undefined): PackEventEntry[] {
  const byEvent = new Map<string, ReturnType<typeof worldMemoriesOfWorldEvents>>();
  for (const m of worldMemoriesOfWorldEvents(db, projectId)) {
    const list = byEvent.get(m.event_id) ?? [];
    list.push(m);
    byEvent.set(m.event_id, list);
  }
  return worldEvents(db, projectId).map((e) => {
    const known = byEvent.get(e.id) ?? [];
    // witnesses as the event was recorded (a deleted mind drops out); hearers as gossip left them
    const witnesses = parseJsonColumn<string[]>(e.witnesses, []).flatMap((id) => mindKey(id) ?? []);
    const heardBy = known
      .filter((m) => m.hop > 0 && mindKey(m.mind_id))
      .map((m) => {
        const from = m.told_by ? mindKey(m.told_by) : undefined;
        return {
          mind: mindKey(m.mind_id)!,
          ...(from ? { from } : {}),
          hop: m.hop,
          ...(m.importance !== e.importance ? { importance: m.importance } : {}),
          knownAt: m.known_at,
        };
      });
    const location = locationKey(e.location_id);
    return {
      key: e.pack_key ?? e.id,
      type: e.type,
      description: e.description,
      ...(location ? { location } : {}),
      ...(e.importance !== DEFAULT_EVENT_IMPORTANCE ? { importance: e.importance } : {}),
      ...(e.game_time !== null ? { at: e.game_time } : {}),
      ...(e.secret ? { secret: true } : {}),
      ...(e.public ? { public: true } : {}),
      recordedAt: e.created_at,
      ...(witnesses.length ? { witnesses } : {}),
      ...(heardBy.length ? { heardBy } : {}),
    };
  });
}
