import type { ChatMessage } from "../../llm/types.ts";
import { loreNote } from "../prompt/renderTurn.ts";

/**
 * The prompt without the mind's kept secrets: what the reply guard samples again from when a reply told one (the
 * model cannot tell what it does not see). Each secret note is removed where the turn rendered it (the shared
 * level in the system message, a turn's notes), then any heading left with nothing under it.
 */
const HEADINGS = ["[Lore]"];

export function stripSecrets(messages: ChatMessage[], secrets: { documentName: string; text: string; secret?: boolean; documentId?: string }[]): ChatMessage[] {
  if (secrets.length === 0) return messages;
  const paragraphs = secrets.map((n) => loreNote(n));
  return messages.map((m) => {
    let c = m.content;
    for (const p of paragraphs) c = c.split(`${p}\n\n`).join("").split(`\n\n${p}`).join("").split(p).join("");
    // A heading whose notes are all gone goes too (followed by nothing, a blank line or another heading).
    const lines = c.split("\n");
    c = lines.filter((l, i) => !(HEADINGS.includes(l) && (lines[i + 1] === undefined || lines[i + 1] === "" || lines[i + 1].startsWith("[")))).join("\n");
    c = c.replace(/\n{3,}/g, "\n\n").replace(/\n+$/, "");
    return c === m.content ? m : { ...m, content: c };
  });
}

