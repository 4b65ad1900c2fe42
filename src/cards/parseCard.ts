import { ApiError } from "../core/errors.ts";
import { isPlainObject, Problems } from "../lore/validate/fields.ts";
import { INVALID_CARD, INVALID_LOREBOOK, type Book, type BookEntry, type Card, type Parsed } from "./cardTypes.ts";
import { stSettings } from "./entrySettings.ts";

/** Largest card or lorebook JSON read (real ones are kilobytes; V3 may embed assets as data URIs). */
export const MAX_CARD_JSON_CHARS = 16 * 1024 * 1024;
/** Most entries one lorebook may bring (real books have tens to hundreds); past it the book is refused, not cut. */
export const MAX_BOOK_ENTRIES = 10_000;

/**
 * What a parsed JSON value is: a Character Card V1/V2/V3
 * (https://github.com/malfoyslastname/character-card-spec-v2,
 * https://github.com/kwaroran/character-card-spec-v3), a V3 lorebook
 * (`spec: lorebook_v3`), a bare character book (`{entries: [...]}`), or
 * SillyTavern's World Info file (`{entries: {"0": {uid, key, keysecondary, ...}}}`).
 * Null when it is none of these (e.g. a lore pack).
 */
export function sniffJson(v: unknown): "card" | "lorebook" | null {
  if (!isPlainObject(v)) return null;
  if (v.spec === "chara_card_v2" || v.spec === "chara_card_v3") return "card";
  if (v.spec === "lorebook_v3") return "lorebook";
  if (typeof v.spec === "string" && /^chara_card/.test(v.spec)) return "card";
  if (v.spec === undefined && typeof v.name === "string" && typeof v.first_mes === "string") return "card"; // V1
  if (v.spec === undefined && "entries" in v && (Array.isArray(v.entries) || isPlainObject(v.entries))) return "lorebook";
  return null;
}

/** A card or lorebook from its JSON value; refused whole (400, every problem named) when malformed. */
export function parseCardOrBook(v: unknown): Parsed {
  const kind = sniffJson(v);
  if (kind === "lorebook") return { kind, book: parseLorebook(v) };
  if (kind === "card") return { kind, card: parseCard(v as Record<string, unknown>) };
  throw new ApiError(400, INVALID_CARD, {
    details: ["card: not a character card (no spec 'chara_card_v2' or 'chara_card_v3') nor a lorebook (no 'entries')"],
  });
}

function parseCard(v: Record<string, unknown>): Card {
  const p = new Problems();
  let spec: Card["spec"] = "chara_card_v1";
  let data: Record<string, unknown> = v;
  let at = "";
  if (v.spec !== undefined) {
    if (v.spec !== "chara_card_v2" && v.spec !== "chara_card_v3") {
      p.add("spec", `must be chara_card_v2 or chara_card_v3 (got ${JSON.stringify(v.spec)})`);
    } else spec = v.spec;
    if (!isPlainObject(v.data)) {
      p.add("data", "required, an object holding the card's fields");
      data = {};
    } else data = v.data;
    at = "data.";
  }
  const text = (field: string) => {
    const x = data[field];
    if (x === undefined || x === null) return "";
    if (typeof x !== "string") {
      p.add(at + field, "must be a string");
      return "";
    }
    return x;
  };
  const strings = (field: string) => {
    const x = data[field];
    if (x === undefined || x === null) return [];
    if (!Array.isArray(x) || x.some((s) => typeof s !== "string")) {
      p.add(at + field, "must be a list of strings");
      return [];
    }
    return x as string[];
  };
  const name = text("name").trim();
  if (!name && (typeof data.name === "string" || data.name === undefined)) p.add(`${at}name`, "required, a non-empty string");
  const card: Card = {
    spec,
    name,
    description: text("description"),
    personality: text("personality"),
    scenario: text("scenario"),
    firstMes: text("first_mes"),
    mesExample: text("mes_example"),
    systemPrompt: text("system_prompt"),
    postHistoryInstructions: text("post_history_instructions"),
    creatorNotes: text("creator_notes"),
    creator: text("creator"),
    characterVersion: text("character_version"),
    alternateGreetings: strings("alternate_greetings"),
    tags: strings("tags"),
    book: null,
  };
  if (data.character_book !== undefined && data.character_book !== null) {
    card.book = readBook(data.character_book, `${at}character_book`, p);
  }
  p.throwIfAny(INVALID_CARD);
  return card;
}

export function parseLorebook(v: unknown): Book {
  const p = new Problems();
  let root = v;
  let at = "";
  if (isPlainObject(v) && v.spec === "lorebook_v3") {
    root = v.data;
    at = "data";
  }
  const book = readBook(root, at, p);
  p.throwIfAny(INVALID_LOREBOOK);
  return book;
}

/** A book in card form (entries: list) or World Info form (entries: object keyed by uid). */
function readBook(v: unknown, path: string, p: Problems): Book {
  const join = (f: string) => (path ? `${path}.${f}` : f);
  if (!isPlainObject(v)) {
    p.add(path || "lorebook", "must be an object with entries");
    return { name: null, entries: [] };
  }
  const name = typeof v.name === "string" && v.name.trim() ? v.name.trim() : null;
  const entries: BookEntry[] = [];
  const total = Array.isArray(v.entries) ? v.entries.length : isPlainObject(v.entries) ? Object.keys(v.entries).length : 0;
  if (total > MAX_BOOK_ENTRIES) {
    p.add(join("entries"), `at most ${MAX_BOOK_ENTRIES} entries (this book has ${total})`);
    return { name, entries: [] };
  }
  if (Array.isArray(v.entries)) {
    v.entries.forEach((e, i) => {
      const entry = readEntry(e, `${join("entries")}[${i}]`, i, p);
      if (entry) entries.push(entry);
    });
  } else if (isPlainObject(v.entries)) {
    Object.entries(v.entries).forEach(([k, e], i) => {
      const entry = readEntry(e, `${join("entries")}.${k}`, i, p);
      if (entry) entries.push(entry);
    });
  } else {
    p.add(join("entries"), "required, a list of entries (or World Info's object of entries)");
  }
  const seen = new Map<string, string>();
  for (const e of entries) {
    const other = seen.get(e.id);
    if (other) p.add(e.path, `same id ${JSON.stringify(e.id)} as ${other}`);
    seen.set(e.id, e.path);
  }
  return { name, entries };
}

/**
 * One entry; card books use keys/secondary_keys/enabled/insertion_order,
 * World Info uses key/keysecondary/disable/order. Both are read.
 */
function readEntry(e: unknown, path: string, index: number, p: Problems): BookEntry | null {
  if (!isPlainObject(e)) {
    p.add(path, "must be an object");
    return null;
  }
  const before = p.list.length;
  const list = (names: string[]): string[] => {
    const name = names.find((n) => e[n] !== undefined && e[n] !== null);
    if (!name) return [];
    const x = e[name];
    if (typeof x === "string") return x.split(",").map((s) => s.trim()).filter(Boolean); // some tools write "a, b"
    if (!Array.isArray(x) || x.some((s) => typeof s !== "string")) {
      p.add(`${path}.${name}`, "must be a list of strings");
      return [];
    }
    return (x as string[]).map((s) => s.trim()).filter(Boolean);
  };
  const bool = (name: string, dflt: boolean): boolean => {
    const x = e[name];
    if (x === undefined || x === null) return dflt;
    if (typeof x !== "boolean") {
      p.add(`${path}.${name}`, "must be true or false");
      return dflt;
    }
    return x;
  };
  const str = (name: string): string | null => {
    const x = e[name];
    if (x === undefined || x === null) return null;
    if (typeof x !== "string") {
      p.add(`${path}.${name}`, "must be a string");
      return null;
    }
    return x.trim() || null;
  };
  if (typeof e.content !== "string") p.add(`${path}.content`, "required, a string");
  const order = e.insertion_order ?? e.order ?? 100;
  if (typeof order !== "number" || !Number.isFinite(order)) p.add(`${path}.insertion_order`, "must be a number");
  const rawId = e.id ?? e.uid;
  if (rawId !== undefined && rawId !== null && typeof rawId !== "number" && typeof rawId !== "string") p.add(`${path}.id`, "must be a number or a string");
  const enabled = e.disable !== undefined ? !bool("disable", false) : bool("enabled", true);
  const st = stSettings(e, path, p);
  const entry: BookEntry = {
    id: rawId === undefined || rawId === null || rawId === "" ? `#${index + 1}` : String(rawId),
    path,
    name: str("name") ?? str("comment"),
    keys: list(["keys", "key"]),
    secondaryKeys: list(["secondary_keys", "keysecondary"]),
    content: typeof e.content === "string" ? e.content : "",
    enabled,
    constant: bool("constant", false),
    selective: bool("selective", false),
    ...st,
    insertionOrder: typeof order === "number" ? order : 100,
  };
  return p.list.length === before ? entry : null;
}
