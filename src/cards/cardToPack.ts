import { LIMITS } from "../lore/validate/fields.ts";
import type { Pack, PackDocument, PackMind } from "../packs/types.ts";
import { TIMER_MAX } from "../lore/documents/documentGate.ts";
import type { Book, BookEntry, Card, EntryReport } from "./cardTypes.ts";

/**
 * Character cards and lorebooks as lore packs, so that they import through
 * the pack writer (same validation, same idempotence by key, one
 * transaction). docs/authoring-lore.md "Import from SillyTavern" is the user's version of
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

const DECORATORS = /^(?:@@[^\n]*\n)+/;

/**
 * A document for a lorebook entry, and what of the entry came along. SillyTavern activates an entry by its
 * keywords; Lorehold retrieves by meaning (and by words), so the keywords become the document's first line
 * (`Keywords: …`), where both halves of the search find them, and no keyword gate remains. Secondary keys that
 * exclude (NOT ANY, NOT ALL) are left out of that line, so they do not draw the entry in. The timers
 * (sticky, cooldown, delay) become the document's own. V3 decorators (leading `@@` lines) are dropped.
 */
function entryDocument(e: BookEntry, keyPrefix: string, tag: string, charName: string | null): { doc: PackDocument; report: EntryReport } {
  const raw = resolveMacros(e.content, charName ?? "the character");
  const decorators = raw.match(DECORATORS)?.[0].trim().split("\n") ?? [];
  const body = raw.replace(DECORATORS, "").trim();
  const excludes = e.selective && e.secondaryKeys.length > 0 && e.selectiveLogic.startsWith("NOT");
  const words = [...new Set([...e.keys, ...(excludes ? [] : e.secondaryKeys)])];
  const name = (e.name ?? (e.keys.length ? e.keys.slice(0, 4).join(", ") : `Entry ${e.id}`)).slice(0, LIMITS.name);
  const doc: PackDocument = {
    key: `${keyPrefix}/entry:${e.id}`.slice(0, LIMITS.key),
    name,
    // a disabled entry is kept but seen by no mind (re-enabling it in the card and re-importing brings it back)
    tags: e.enabled ? [tag] : [],
    content: words.length ? `${KEYWORDS_PREFIX}${words.join(", ")}\n\n${body}` : body,
  };
  const report = entryReport(e, doc.key, name);
  if (decorators.length) report.notMapped.push(`decorators ${decorators.join(" ")}: dropped (no equivalent)`);
  for (const t of ["sticky", "cooldown", "delay"] as const) {
    const v = e[t];
    if (v === null) continue;
    doc[t] = Math.min(v, TIMER_MAX);
    report.mapped.push(`${t} ${v} → the document's ${t} ${doc[t]} (counted in the player's turns; SillyTavern counts chat messages)`);
    if (v > TIMER_MAX) report.notMapped.push(`${t} ${v}: cut to ${TIMER_MAX}, the longest timer`);
  }
  if (!e.enabled) report.mapped.push("disabled → a document with no tag, which no mind sees");
  return { doc, report };
}

/** The keyword part of an entry's report, and the settings no Lorehold field holds. */
function entryReport(e: BookEntry, documentKey: string | null, name: string): EntryReport {
  const mapped: string[] = [];
  const notMapped = [...e.unmapped];
  const quoted = (l: string[]) => l.map((k) => `'${k}'`).join(", ");
  if (e.keys.length) mapped.push(`keys ${quoted(e.keys)} → the document's Keywords line (found by meaning and by words; no keyword gate)`);
  if (e.secondaryKeys.length) {
    if (!e.selective) mapped.push(`secondary_keys ${quoted(e.secondaryKeys)} (not selective) → the Keywords line too`);
    else if (e.selectiveLogic.startsWith("AND")) {
      mapped.push(`secondary_keys ${quoted(e.secondaryKeys)} → the Keywords line too`);
      notMapped.push(`selectiveLogic ${e.selectiveLogic}: the entry needed ${e.selectiveLogic === "AND ALL" ? "all" : "one"} of its secondary keys as well; retrieval has no keyword gate`);
    } else {
      notMapped.push(`selectiveLogic ${e.selectiveLogic} with secondary_keys ${quoted(e.secondaryKeys)}: an exclusion by keyword; retrieval has none, and the words are left out of the text so they do not draw the entry in`);
    }
  }
  return { entry: e.path, name, documentKey, mapped, notMapped };
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
  /** what each lorebook entry became, and what of it could not come along */
  entries: EntryReport[];
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
  const made = searched.map((e) => entryDocument(e, key, tag, card.name));
  const documents = made.map((d) => d.doc);
  const reports: EntryReport[] = [...made.map((d) => d.report), ...constant.map((e) => constantReport(e))];
  const at = new Map(entries.map((e, i) => [e.path, i]));
  reports.sort((a, b) => at.get(a.entry)! - at.get(b.entry)!);
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
  return { pack, mindKey: key, relabel, entries: reports };
}

/** A card's constant entry: part of its mind's always-known text, which carries no timer. */
function constantReport(e: BookEntry): EntryReport {
  const r = entryReport(e, null, e.name ?? `Entry ${e.id}`);
  r.mapped.unshift("constant → the mind's always-known text (knowledgeDescription, in every player's prompt)");
  if (e.keys.length) r.mapped.splice(1, 1, "keys: not needed, the text is always there");
  for (const t of ["sticky", "cooldown", "delay"] as const) if (e[t] !== null) r.notMapped.push(`${t} ${e[t]}: the always-known text has no timer`);
  return r;
}

export interface BookPlan {
  pack: Pack;
  tag: string;
  entries: EntryReport[];
  relabel: (problem: string) => string;
}

/** A standalone lorebook: every entry a document under the book's tag (constant ones too: there is no mind to hold them). */
export function bookToPack(book: Book, bookName: string, projectName: string | null, attachTo: PackMind | null): BookPlan {
  const tag = `st:${slug(bookName)}`;
  const made = book.entries.map((e) => entryDocument(e, `lorebook:${slug(bookName)}`, tag, attachTo?.entityName ?? null));
  const documents = made.map((d) => d.doc);
  const entries = made.map((d, i) => {
    const e = book.entries[i];
    // No mind holds a standalone book's text: a constant entry is a document with no condition and no timer,
    // which the shared-lore level (the same for every player of a mind) may hold.
    if (e.constant && e.enabled) d.report.mapped.unshift("constant → a document with no condition or timer (eligible for a mind's shared lore); no mind's text holds it always");
    return d.report;
  });
  const pack: Pack = { tags: [{ name: tag }], documents };
  if (attachTo) pack.minds = [{ ...attachTo, knowledgeTags: [...new Set([...(attachTo.knowledgeTags ?? []), tag])] }];
  if (projectName !== null) pack.project = { name: projectName };
  const relabel = (problem: string) =>
    problem.replace(/^documents\[(\d+)\]\.?(\w*)/, (all, i: string, f: string) => {
      const e = book.entries[Number(i)];
      return e ? (f ? `${e.path}.${f === "name" ? "name" : "content"}` : e.path) : all;
    });
  return { pack, tag, relabel, entries };
}
