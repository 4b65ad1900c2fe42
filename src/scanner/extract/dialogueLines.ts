import { isLineKey, speakerKeyKind, titleRank, usableTitle } from "./fieldNames.ts";

export interface DialogueLine {
  speaker: string;
  text: string;
  /** The line's other fields (an action, a condition …), walked as usual. */
  rest: [string, unknown][];
}

/**
 * A list of spoken lines: two or more objects, each with one who-speaks field and one line field
 * (`{"nom": "Loïc", "text": "…"}`, `{"speaker": …, "line": …}`, `{"personaje": …, "texto": …}`), in any
 * of the languages of fieldNames.ts. A name field (`name`, `nom`, `nombre`) is a speaker only when a
 * name comes back in the list — `[{name: "Sword", text: …}, {name: "Shield", text: …}]` is a list of
 * things. Returns the lines in order, or null when the list is anything else.
 */
export function dialogueLines(items: unknown[]): DialogueLine[] | null {
  if (items.length < 2) return null;
  const lines: DialogueLine[] = [];
  let byName = false;
  for (const item of items) {
    if (!item || typeof item !== "object" || Array.isArray(item) || Object.getPrototypeOf(item) !== Object.prototype) return null;
    let speaker: string | null = null;
    let kind: "speaker" | "name" | null = null;
    let text: string | null = null;
    const rest: [string, unknown][] = [];
    for (const [k, v] of Object.entries(item as Record<string, unknown>)) {
      const sk = speaker === null && typeof v === "string" ? speakerKeyKind(k) : null;
      if (sk && usableTitle(v)) {
        speaker = usableTitle(v);
        kind = sk;
      } else if (text === null && typeof v === "string" && isLineKey(k)) text = v;
      // Other title-like strings (an id, a key) name the line, they are not more text.
      else if (!(typeof v === "string" && titleRank(k) >= 0)) rest.push([k, v]);
    }
    if (speaker === null || text === null) return null;
    if (kind === "name") byName = true;
    lines.push({ speaker, text, rest });
  }
  if (byName && new Set(lines.map((l) => l.speaker)).size === lines.length) return null;
  return lines;
}
