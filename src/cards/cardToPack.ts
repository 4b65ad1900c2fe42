import { LIMITS } from "../lore/validate/fields.ts";
import type { Pack, PackDocument, PackMind } from "../packs/types.ts";
import type { Book, BookEntry, Card } from "./cardTypes.ts";

/**
 * Character cards and lorebooks as lore packs, so that they import through
 * the pack writer (same validation, same idempotence by key, one
 * transaction). README "Import from SillyTavern" is the user's version of
 * this mapping; keep the two in step.
 */

/** A key- and tag-safe form of a name: lower case, runs of anything else as '-'. */
export function slug(name: string): string {
  const s = name.normalize("NFKD").toLowerCase().replace(/[\u0300-\u036f]/g, "").replace(/[^\p{L}\p{N}]+/gu, "-").replace(/^-+|-+$/g, "");
  return s.slice(0, 60).replace(/-+$/, "") || "unnamed";
}

/** SillyTavern's macros, resolved: the mind speaks as itself and talks to "the player". */
export function resolveMacros(text: string, charName: string): string {
  return text
    .replace(/\{\{char\}\}|<BOT>/gi, charName)
    .replace(/\{\{user\}\}|<USER>/gi, "the player")
    .replace(/\{\{original\}\}/gi, "")
    .replace(/\r\n?/g, "\n");
}

/** The first line of an imported entry's document: its trigger words, so keyword search finds it as SillyTavern would. */
export const KEYWORDS_PREFIX = "Keywords: ";

/** A document for a lorebook entry. V3 decorators (leading `@@` lines) are dropped. */
function entryDocument(e: BookEntry, keyPrefix: string, tag: string, charName: string | null): PackDocument {
  const body = resolveMacros(e.content, charName ?? "the character").replace(/^(?:@@[^\n]*\n)+/, "").trim();
  const words = [...new Set([...e.keys, ...e.secondaryKeys])];
  const name = (e.name ?? (e.keys.length ? e.keys.slice(0, 4).join(", ") : `Entry ${e.id}`)).slice(0, LIMITS.name);
  return {
    key: `${keyPrefix}/entry:${e.id}`.slice(0, LIMITS.key),
    name,
    // a disabled entry is kept but seen by no mind (re-enabling it in the card and re-importing brings it back)
    tags: e.enabled ? [tag] : [],
    content: words.length ? `${KEYWORDS_PREFIX}${words.join(", ")}\n\n${body}` : body,
  };
}

/** Text split into list items (hints, restrictions): one per non-empty line. */
function lines(text: string): string[] {
  return text.split("\n").map((l) => l.trim()).filter(Boolean);
}

/** Writer-facing extras of a card that no mind field holds; kept in a document no mind sees. */
export function notesDocument(card: Card, keyPrefix: string): PackDocument | null {
  const sections: [string, string][] = [
    ["Creator notes", card.creatorNotes],
    ["Creator", card.creator],
    ["Character version", card.characterVersion],
    ["First message", card.firstMes],
    ...card.alternateGreetings.map((g, i): [string, string] => [`Alternate greeting ${i + 1}`, g]),
  ];
  const content = sections
    .filter(([, text]) => text.trim())
    .map(([title, text]) => `## ${title}\n\n${text.replace(/\r\n?/g, "\n").trim()}`)
    .join("\n\n");
  if (!content) return null;
  return { key: `${keyPrefix}/notes`, name: `${card.name} (card notes)`.slice(0, LIMITS.name), tags: [], content };
}

export interface CardPlan {
  pack: Pack;
  mindKey: string;
  /** pack path → card path, for problems the pack writer finds */
  relabel: (problem: string) => string;
}

export function cardToPack(card: Card, projectName: string | null): CardPlan {
  const key = `st:${slug(card.name)}`;
  const tag = key;
  const m = (s: string) => resolveMacros(s, card.name).trim();
  const entries = card.book?.entries ?? [];
  const constant = entries.filter((e) => e.constant && e.enabled);
  const searched = entries.filter((e) => !(e.constant && e.enabled));
  const personality = m(card.personality);
  const description = m(card.description);
  const mesExample = m(card.mesExample).replace(/^<START>\s*$/gim, "").replace(/\n{3,}/g, "\n\n").trim();
  const backstory = [personality ? description : "", m(card.scenario) ? `Scenario: ${m(card.scenario)}` : ""].filter(Boolean).join("\n\n");
  const mind: PackMind = {
    key,
    entityName: card.name,
    // a card without a personality field keeps it in its description
    personality: personality || description,
    backstory: backstory || null,
    speakingStyle: mesExample ? `Example dialogue:\n${mesExample}` : null,
    hints: lines(m(card.systemPrompt)),
    restrictions: lines(m(card.postHistoryInstructions)),
    knowledgeTags: [tag],
    knowledgeDescription: constant.map((e) => m(e.content).replace(/^(?:@@[^\n]*\n)+/, "").trim()).filter(Boolean).join("\n\n") || null,
  };
  const documents = searched.map((e) => entryDocument(e, key, tag, card.name));
  const notes = notesDocument(card, key);
  if (notes) documents.push(notes);
  const pack: Pack = { tags: [{ name: tag }], minds: [mind], documents };
  if (projectName !== null) pack.project = { name: projectName };

  const mindFields: Record<string, string> = {
    entityName: "data.name",
    personality: personality ? "data.personality" : "data.personality (empty, and so is data.description)",
    backstory: "data.description + data.scenario",
    speakingStyle: "data.mes_example",
    hints: "data.system_prompt (a line)",
    restrictions: "data.post_history_instructions (a line)",
    knowledgeDescription: "the constant lorebook entries together",
  };
  const relabel = (problem: string) =>
    problem
      .replace(/^minds\[0\]\.(\w+)(?:\[\d+\])?/, (all, f: string) => mindFields[f] ?? all)
      .replace(/^documents\[(\d+)\]\.?(\w*)/, (all, i: string, f: string) => {
        const e = searched[Number(i)];
        if (!e) return "data.creator_notes";
        return f === "name" ? `${e.path}.name` : f === "content" ? `${e.path}.content` : e.path;
      });
  return { pack, mindKey: key, relabel };
}

export interface BookPlan {
  pack: Pack;
  tag: string;
  relabel: (problem: string) => string;
}

/** A standalone lorebook: every entry a document under the book's tag (constant ones too: there is no mind to hold them). */
export function bookToPack(book: Book, bookName: string, projectName: string | null, attachTo: PackMind | null): BookPlan {
  const tag = `st:${slug(bookName)}`;
  const documents = book.entries.map((e) => entryDocument(e, `lorebook:${slug(bookName)}`, tag, attachTo?.entityName ?? null));
  const pack: Pack = { tags: [{ name: tag }], documents };
  if (attachTo) pack.minds = [{ ...attachTo, knowledgeTags: [...new Set([...(attachTo.knowledgeTags ?? []), tag])] }];
  if (projectName !== null) pack.project = { name: projectName };
  const relabel = (problem: string) =>
    problem.replace(/^documents\[(\d+)\]\.?(\w*)/, (all, i: string, f: string) => {
      const e = book.entries[Number(i)];
      return e ? (f ? `${e.path}.${f === "name" ? "name" : "content"}` : e.path) : all;
    });
  return { pack, tag, relabel };
}
