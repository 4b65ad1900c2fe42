import type { ServiceContext } from "../core/context.ts";
import { notFound } from "../core/errors.ts";
import { exportPack } from "../packs/exportPack.ts";
import { loadSnapshot } from "../packs/projectSnapshot.ts";
import { getProject } from "../projects/projectService.ts";
import { KEYWORDS_PREFIX } from "./cardToPack.ts";
import { base64Utf8, writeCardPng } from "./png/writeCardPng.ts";

/** A Character Card V2 (chara_card_v2 / 2.0) as SillyTavern reads it. */
export interface CardV2 {
  spec: "chara_card_v2";
  spec_version: "2.0";
  data: {
    name: string;
    description: string;
    personality: string;
    scenario: string;
    first_mes: string;
    mes_example: string;
    creator_notes: string;
    system_prompt: string;
    post_history_instructions: string;
    alternate_greetings: string[];
    tags: string[];
    creator: string;
    character_version: string;
    extensions: Record<string, unknown>;
    character_book?: {
      name: string;
      extensions: Record<string, unknown>;
      entries: Array<{
        keys: string[];
        content: string;
        extensions: Record<string, unknown>;
        enabled: boolean;
        insertion_order: number;
        id: number;
        name: string;
        comment: string;
        constant: boolean;
        selective: boolean;
        secondary_keys: string[];
        case_sensitive: boolean;
        position: "before_char";
      }>;
    };
  };
}

/** `## Title\n\ntext` sections of a card-notes document (see notesDocument in cardToPack.ts). */
function sections(content: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of `\n${content}`.split(/\n## /).slice(1)) {
    const nl = part.indexOf("\n");
    if (nl > 0) out.set(part.slice(0, nl).trim(), part.slice(nl + 1).trim());
  }
  return out;
}

/**
 * A mind and the lore it can see (documents sharing one of its knowledge
 * tags) as a Card V2: the inverse of the import mapping where there is one
 * (docs/authoring-lore.md, "Import from SillyTavern"). Each document is one lorebook entry
 * whose keys are its "Keywords:" line when it came from a card, else its name.
 */
export function exportCard(ctx: ServiceContext, projectId: string, mindId: string): CardV2 {
  getProject(ctx, projectId);
  const key = loadSnapshot(ctx, projectId).minds.keyOf.get(mindId);
  const pack = exportPack(ctx, projectId);
  const mind = key ? pack.minds?.find((m) => m.key === key) : undefined;
  if (!mind) throw notFound("Entity Mind");
  const tags = new Set(mind.knowledgeTags ?? []);
  const docs = pack.documents ?? [];
  const notes = docs.find((d) => d.key === `${key}/notes`);
  const extra = notes ? sections(notes.content) : new Map<string, string>();
  const visible = docs.filter((d) => (d.tags ?? []).some((t) => tags.has(t)));

  const backstory = mind.backstory ?? "";
  const at = backstory.lastIndexOf("Scenario: ");
  const [description, scenario] = at >= 0 && (at === 0 || backstory.slice(at - 2, at) === "\n\n")
    ? [backstory.slice(0, at).trim(), backstory.slice(at + "Scenario: ".length).trim()]
    : [backstory, ""];
  const greetings = [...extra].filter(([t]) => /^Alternate greeting \d+$/.test(t)).map(([, g]) => g);

  const entries = visible.map((d, i) => {
    const m = d.content.startsWith(KEYWORDS_PREFIX) ? /^Keywords: ([^\n]*)\n\n?/.exec(d.content) : null;
    const keys = m ? m[1].split(",").map((k) => k.trim()).filter(Boolean) : [d.name];
    return {
      keys,
      content: m ? d.content.slice(m[0].length) : d.content,
      extensions: {},
      enabled: true,
      insertion_order: 100 + i,
      id: i + 1,
      name: d.name,
      comment: d.name,
      constant: false,
      selective: false,
      secondary_keys: [],
      case_sensitive: false,
      position: "before_char" as const,
    };
  });
  if (mind.knowledgeDescription) {
    // always-known text is what a constant entry is in SillyTavern
    entries.unshift({
      keys: [mind.entityName], content: mind.knowledgeDescription, extensions: {}, enabled: true, insertion_order: 99, id: 0,
      name: `What ${mind.entityName} knows`, comment: `What ${mind.entityName} knows`, constant: true, selective: false,
      secondary_keys: [], case_sensitive: false, position: "before_char",
    });
  }
  const style = mind.speakingStyle ?? "";
  return {
    spec: "chara_card_v2",
    spec_version: "2.0",
    data: {
      name: mind.entityName,
      description: [description, mind.role ? `Role: ${mind.role}` : ""].filter(Boolean).join("\n\n"),
      personality: mind.personality,
      scenario,
      first_mes: extra.get("First message") ?? "",
      mes_example: style.startsWith("Example dialogue:\n") ? style.slice("Example dialogue:\n".length) : style,
      creator_notes: extra.get("Creator notes") ?? "Exported from Lorehold.",
      // A card has no conditions: only the lines every player sees go out.
      system_prompt: (mind.hints ?? []).filter((l) => typeof l === "string").join("\n"),
      post_history_instructions: (mind.restrictions ?? []).filter((l) => typeof l === "string").join("\n"),
      alternate_greetings: greetings,
      tags: [...tags].sort(),
      creator: extra.get("Creator") ?? "",
      character_version: extra.get("Character version") ?? "",
      extensions: { lorehold: { mindId, projectId } },
      ...(entries.length ? { character_book: { name: `${mind.entityName}'s lore`, extensions: {}, entries } } : {}),
    },
  };
}

/** The card as a PNG with a `chara` tEXt chunk (base64 of the JSON), the form SillyTavern imports. */
export function cardToPng(card: CardV2): Uint8Array {
  return writeCardPng({ chara: base64Utf8(JSON.stringify(card)) });
}
