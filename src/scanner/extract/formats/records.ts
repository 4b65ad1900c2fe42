import type { SectionCollector } from "../SectionCollector.ts";
import type { ReviewKind } from "../types.ts";
import { fileStem } from "../text.ts";

const FIELD_RE = /^\s*([A-Za-z][\w-]*)\s*:\s?(.*)$/;
/** Fields whose value is prose; every other field of a record is a stat line and is dropped. */
const TEXT_FIELDS = new Set(["desc", "description", "text", "lore", "msg", "message", "bio", "story", "flavor", "flavour", "info", "quote", "lines", "history"]);
/**
 * Record files of game rules, not of the world: effects, properties, spells of monsters, traps,
 * UI and generator profiles (angband's activation.txt, blow_effects.txt, player_timed.txt …).
 */
const MECHANICS_FILE =
  /^(?:activations?|blow[-_]\w+|effects?|projections?|player[-_]\w+|object[-_](?:property|base)|monster[-_](?:spell|base)s?|propert(?:y|ies)|timed|summons?|traps?|chest[-_]traps?|pain|pits?|brands?|slays?|shapes?|body|constants|dungeon[-_]profiles?|realms?|ui[-_]\w+|visuals|world|room[-_]templates?|names|mechanics|stats?|formulas?|balance|curses?|terrain|flavou?rs?|ego[-_]items?)$/i;
export const MECHANICS = 'Skipped: game mechanics records (effects, properties, generator data; scan them with "include: mechanics" in userContext)';
/** Section length at which a book or long record is cut on paragraph boundaries. */
const MAX_SECTION_CHARS = 4000;

/**
 * Does a .txt hold records rather than prose? Roguelike data files (`name:snaga` then
 * `desc:` and stat lines), faction tables (`#17` / `name: Oblivion`), quest scripts
 * (`Quest:` … `QRC:`) and book files (`Title:` … `Content:`) all do.
 */
export function looksLikeRecords(content: string): boolean {
  const head = content.slice(0, 16384);
  if (/^Quest:\s*\S+/m.test(head) && /^QRC:/m.test(head)) return true;
  if (/^\uFEFF?Title:.*\r?\n(?:[\w-]+:.*\r?\n){0,12}Content:/.test(head)) return true;
  let fields = 0;
  let lines = 0;
  let names = 0;
  for (const line of head.split("\n")) {
    const t = line.trim();
    if (!t || t.startsWith("#") || t.startsWith(";")) continue;
    lines++;
    const m = FIELD_RE.exec(line);
    if (m && !/\s/.test(m[1])) {
      fields++;
      if (m[1].toLowerCase() === "name") names++;
    }
  }
  return names >= 2 && fields / Math.max(1, lines) >= 0.6;
}

/** Record files, quests and books: see looksLikeRecords. One section per record (titled by its name), quest or book chapter. */
export function extractRecords(content: string, out: SectionCollector, includeMechanics = false): void {
  if (!includeMechanics && MECHANICS_FILE.test(fileStem(out.sourceFile))) {
    out.skipFile(MECHANICS);
    return;
  }
  const text = content.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  if (/^Quest:\s*\S+/m.test(text) && /^QRC:/m.test(text)) return extractQuest(text, out);
  const book = /^Title:(.*)\n((?:[\w-]+:.*\n){0,12})Content:[^\n]*\n/.exec(text);
  if (book) return extractBook(book[1].trim(), text.slice(book[0].length), out);
  const kind = kindOfRecordFile(out.sourceFile);
  let name: string | null = null;
  let base: string | null = null;
  let parts: string[] = [];
  let open = false;
  const flush = () => {
    if (open) {
      const title = name && base && /^of\s/i.test(name) ? `${base} ${name}` : name;
      // A record with only a name is a name: listed with the file's short entries, not a candidate of its own.
      if (parts.length) out.add({ title, text: parts.join(" "), kind: "record", reviewKind: kind });
      else if (name) out.add({ title: null, text: name, kind: "record", quiet: true });
    }
    name = null;
    base = null;
    parts = [];
    open = false;
  };
  for (const line of text.split("\n")) {
    const t = line.trim();
    if (/^#\d+$/.test(t)) {
      flush();
      open = true;
      continue;
    }
    if (!t || t.startsWith("#") || t.startsWith(";")) continue;
    const m = FIELD_RE.exec(line);
    if (!m) continue;
    const key = m[1].toLowerCase();
    const value = m[2].trim();
    if (key === "name") {
      if (open && name !== null) flush();
      open = true;
      name = value.replace(/^'(.*)'$/, "$1").replace(/^[~&]\s*/, "");
      continue;
    }
    if (!open) continue;
    if (key === "base-object" || key === "base") base ??= value.split(":").pop()!.trim() || null;
    else if (TEXT_FIELDS.has(key) && value) parts.push(value);
  }
  flush();
}

/** "monster.txt" → character, "artifact.txt" → item …: what a record file's records are. */
function kindOfRecordFile(path: string): ReviewKind | undefined {
  const stem = fileStem(path).toLowerCase();
  if (/monster|creature|race|class|npc|character|person|unique|faction/.test(stem)) return /faction/.test(stem) ? "faction" : "character";
  if (/artifact|artefact|object|item|ego|weapon|armou?r|flavou?r|spell|potion|book|curse/.test(stem)) return "item";
  if (/terrain|town|dungeon|vault|room|location|place|store|shop|building/.test(stem)) return "location";
  if (/quest|history|event/.test(stem)) return "event";
  return undefined;
}

/** A quest script: its messages (QRC part) as one section titled by DisplayName; the QBN logic is code. */
function extractQuest(text: string, out: SectionCollector): void {
  const title = /^DisplayName:\s*(.+)$/m.exec(text)?.[1].trim() ?? /^Quest:\s*(\S+)/m.exec(text)?.[1] ?? null;
  const qrc = text.slice(text.search(/^QRC:/m), text.search(/^QBN:/m) >= 0 ? text.search(/^QBN:/m) : undefined);
  const messages: string[] = [];
  for (const block of qrc.split(/^[\w]+:\s*\[\d+\]\s*$|^Message:\s*\d+\s*$/m)) {
    const body = block
      .split("\n")
      .filter((l) => !/^QRC:|^\s*--/.test(l) && !/^Error -- \d+ called/.test(l.replace(/<ce>/g, "").trim()))
      .map((l) => l.replace(/<ce>/g, "").trim())
      .join(" ")
      .replace(/<--->/g, "\n")
      .trim();
    if (body) messages.push(body);
  }
  let chunk: string[] = [];
  let size = 0;
  let n = 0;
  const flush = () => {
    if (chunk.length) out.add({ title: n++ === 0 ? title : `${title} (${n})`, text: chunk.join("\n\n"), kind: "record", reviewKind: "event" });
    chunk = [];
    size = 0;
  };
  for (const m of messages) {
    if (size + m.length > MAX_SECTION_CHARS) flush();
    chunk.push(m);
    size += m.length;
  }
  flush();
}

/** A book: the body after `Content:`, cut into chapters of about MAX_SECTION_CHARS on paragraph boundaries. */
function extractBook(title: string, body: string, out: SectionCollector): void {
  const paragraphs = body.split(/\n\s*\n+/);
  let chunk: string[] = [];
  let size = 0;
  let n = 0;
  const flush = () => {
    if (chunk.length) out.add({ title: n++ === 0 ? title : `${title} (${n})`, text: chunk.join("\n\n"), kind: "prose", reviewKind: undefined });
    chunk = [];
    size = 0;
  };
  for (const p of paragraphs) {
    if (size > 0 && size + p.length > MAX_SECTION_CHARS) flush();
    chunk.push(p);
    size += p.length;
  }
  flush();
}
