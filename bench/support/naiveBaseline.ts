/**
 * The naive baseline of bench/quality.ts: what a game would do without Lorehold. The mind's persona as the author
 * wrote it plus every document the mind may see (its knowledge tags), pasted into one system prompt; the player's
 * line as the user message; one fresh turn. Built from the pack file alone, never from the product's prompt code,
 * so a change to the product's prompt cannot move the baseline.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";

interface PackMind {
  key: string;
  entityName: string;
  role?: string;
  personality?: string;
  backstory?: string;
  speakingStyle?: string;
  hints?: string[];
  restrictions?: string[];
  knowledgeTags?: string[];
  responseConfig?: { temperature?: number };
}
interface PackDocument {
  key: string;
  name: string;
  tags?: string[];
  content: string;
}

export interface NaiveMind {
  system: string;
  /** the mind's name: who the reply speaks as (a model without a chat template opens the reply's turn with it) */
  name: string;
  temperature: number;
  /** the persona's lines, for the prompt-echo check of the baseline's replies */
  personaLines: string[];
}

/** Per mind key of the packs: the naive system prompt and the mind's temperature (`defaultTemperature` where it sets none). */
export function naivePrompts(root: string, packs: string[], defaultTemperature = 0.7): Map<string, NaiveMind> {
  const out = new Map<string, NaiveMind>();
  for (const file of packs) {
    const pack = parse(readFileSync(join(root, file), "utf8")) as { minds?: PackMind[]; documents?: PackDocument[] };
    for (const m of pack.minds ?? []) {
      const tags = new Set(m.knowledgeTags ?? []);
      const docs = (pack.documents ?? []).filter((d) => (d.tags ?? []).some((t) => tags.has(t)));
      const persona = [
        `You are ${m.entityName}${m.role ? `, ${m.role}` : ""}.`,
        m.personality ?? "",
        m.backstory ?? "",
        m.speakingStyle ? `Speaking style: ${m.speakingStyle}` : "",
        ...(m.hints ?? []),
        ...(m.restrictions ?? []),
      ].filter(Boolean);
      const lore = docs.map((d) => `${d.name}:\n${d.content.trim()}`).join("\n\n");
      out.set(m.key, { system: `${persona.join("\n")}\n\n${lore}`, name: m.entityName, temperature: m.responseConfig?.temperature ?? defaultTemperature, personaLines: persona });
    }
  }
  return out;
}
