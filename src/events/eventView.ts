import { parseJsonColumn } from "../core/json.ts";
import type { EventRow } from "./eventStore.ts";

/** An event as the API shows it. */
export interface EventView {
  id: string;
  type: string;
  description: string;
  locationId: string | null;
  playerId: string | null;
  importance: number;
  at: string | null;
  secret: boolean;
  public: boolean;
  /** the minds that saw it (gossip's hearers are in the admin "who knows" view) */
  witnesses: string[];
  createdAt: string;
}

export function toEventView(r: EventRow): EventView {
  return {
    id: r.id,
    type: r.type,
    description: r.description,
    locationId: r.location_id,
    playerId: r.player_id,
    importance: r.importance,
    at: r.game_time,
    secret: r.secret === 1,
    public: r.public === 1,
    witnesses: parseJsonColumn<string[]>(r.witnesses, []),
    createdAt: r.created_at,
  };
}
