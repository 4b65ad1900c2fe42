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

/**
 * A hint or restriction as authored: a plain line (always in the mind's static prompt) or `{text, when}`
 * (only while the condition holds, in the turn's part: docs/internals/turn-pipeline.md).
 */
export type MindLine = string | { text: string; when: string };

export interface Persona {
  entityName: string;
  personality: string;
  backstory: string | null;
  backstorySummary: string | null;
  role: string | null;
  speakingStyle: string | null;
  hints: MindLine[];
  restrictions: MindLine[];
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
    hints: parseJsonColumn<MindLine[]>(r.hints, []),
    restrictions: parseJsonColumn<MindLine[]>(r.restrictions, []),
  };
}

/** A conditional hint or restriction of a mind, as the turn evaluates it. */
export interface ConditionalLine {
  kind: "hint" | "restriction";
  text: string;
  when: string;
}

/** The lines every player sees (the static prompt's) and the conditional ones, in authored order. */
export function splitLines(p: Pick<Persona, "hints" | "restrictions">): { hints: string[]; restrictions: string[]; conditional: ConditionalLine[] } {
  const conditional: ConditionalLine[] = [];
  const plain = (kind: ConditionalLine["kind"], list: MindLine[]) =>
    list.flatMap((l) => {
      if (typeof l === "string") return [l];
      conditional.push({ kind, text: l.text, when: l.when });
      return [];
    });
  return { hints: plain("hint", p.hints), restrictions: plain("restriction", p.restrictions), conditional };
}
