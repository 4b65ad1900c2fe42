import { parseJsonColumn } from "../../core/json.ts";

/** The entity_minds columns that describe who a mind is, as stored. */
export interface PersonaRow {
  entity_name: string;
  personality: string;
  backstory: string | null;
  backstory_summary: string | null;
  role: string | null;
  speaking_style: string | null;
  hints: string;
  restrictions: string;
}

export interface Persona {
  entityName: string;
  personality: string;
  backstory: string | null;
  backstorySummary: string | null;
  role: string | null;
  speakingStyle: string | null;
  hints: string[];
  restrictions: string[];
}

/** Row → persona fields, shared by the lore API's view and the runtime's profile. */
export function personaFields(r: PersonaRow): Persona {
  return {
    entityName: r.entity_name,
    personality: r.personality,
    backstory: r.backstory,
    backstorySummary: r.backstory_summary,
    role: r.role,
    speakingStyle: r.speaking_style,
    hints: parseJsonColumn<string[]>(r.hints, []),
    restrictions: parseJsonColumn<string[]>(r.restrictions, []),
  };
}
