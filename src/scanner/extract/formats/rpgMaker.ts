import type { SectionCollector } from "../SectionCollector.ts";
import { SKIP, fileStem } from "../text.ts";

/**
 * RPG Maker MV/MZ data: maps (`data/Map001.json`: `displayName`, `events[].pages[].list`), common events
 * (`CommonEvents.json`: `[{ name, list }]`) and troops (`Troops.json`: `[{ name, pages[].list }]`).
 * An event's text lives in its command list: command 101 opens a message window (face, face index,
 * background, position and, in MZ, the speaker's name), and the 401 commands after it are the window's
 * lines, wrapped by hand to fit the box. One window is one passage: read line by line, every wrapped
 * sentence would be cut in two and titled by the JSON field holding it.
 */

interface Command {
  code?: unknown;
  parameters?: unknown;
}

const MESSAGE = 101;
const MESSAGE_LINE = 401;
const SCROLL = 105;
const SCROLL_LINE = 405;
const CHOICES = 102;

/** An editor's default event name (EV001) names nothing. */
const DEFAULT_EVENT_NAME = /^EV\d+$/i;

/** A Map/CommonEvents/Troops file of RPG Maker MV/MZ, judged on its first bytes and its name. */
export function isRpgMakerData(relativePath: string, content: string): boolean {
  const stem = fileStem(relativePath);
  if (!/^(?:Map\d{3,}|CommonEvents|Troops)$/.test(stem)) return false;
  return /"code"\s*:\s*\d+\s*,\s*"indent"|"list"\s*:\s*\[/.test(content.slice(0, 200_000)) || /"displayName"\s*:/.test(content.slice(0, 2000));
}

/** RPG Maker's text codes: colours, icons, variables, actor names, waits, instant-show switches. */
export function cleanRpgMakerText(s: string): string {
  return s
    .replace(/\\[Nn]\[\d+\]/g, "")
    .replace(/\\[Pp]\[\d+\]/g, "")
    .replace(/\\[Vv]\[\d+\]/g, "")
    .replace(/\\[A-Za-z]+\[[^\]]*\]/g, "")
    .replace(/\\[{}.|!><^$G]/g, "")
    .replace(/\\\\/g, "\\")
    .replace(/[ \t]+/g, " ")
    .trim();
}

/** The speaker of a message window: MZ's name parameter. MV's face image is no name (`Actor1`, `People3` are sheet files). */
function speakerOf(params: unknown): string | undefined {
  if (!Array.isArray(params)) return undefined;
  const name = typeof params[4] === "string" ? cleanRpgMakerText(params[4]) : "";
  if (name) return name;
  return undefined;
}

/** Each message window (and scrolling text) of one command list, its wrapped lines joined. */
export function messageWindows(list: unknown): { speaker?: string; text: string; choices: string[] }[] {
  if (!Array.isArray(list)) return [];
  const out: { speaker?: string; text: string; choices: string[] }[] = [];
  let current: { speaker?: string; lines: string[]; choices: string[] } | null = null;
  let lineCode = 0;
  const close = () => {
    if (current) {
      const text = current.lines.join(" ").replace(/\s+/g, " ").trim();
      if (text) out.push({ speaker: current.speaker, text, choices: current.choices });
    }
    current = null;
  };
  for (const raw of list as Command[]) {
    const code = typeof raw?.code === "number" ? raw.code : -1;
    const params = Array.isArray(raw?.parameters) ? raw.parameters : [];
    if (code === MESSAGE || code === SCROLL) {
      close();
      current = { speaker: code === MESSAGE ? speakerOf(params) : undefined, lines: [], choices: [] };
      lineCode = code === MESSAGE ? MESSAGE_LINE : SCROLL_LINE;
    } else if (current && code === lineCode && typeof params[0] === "string") {
      current.lines.push(cleanRpgMakerText(params[0]));
    } else if (current && code === CHOICES && Array.isArray(params[0])) {
      // The choices shown under a window belong to it: the player's possible answers.
      for (const c of params[0]) if (typeof c === "string" && cleanRpgMakerText(c)) current.choices.push(cleanRpgMakerText(c));
      close();
    } else close();
  }
  close();
  return out;
}

/** One passage per event (its windows in order, a speaker's lines as `Name: text`), titled by map and event. */
function addEvent(out: SectionCollector, title: string, lists: unknown[]): void {
  const paragraphs: string[] = [];
  for (const list of lists) {
    for (const w of messageWindows(list)) {
      paragraphs.push(w.speaker ? `${w.speaker}: ${w.text}` : w.text);
      if (w.choices.length) paragraphs.push(w.choices.map((c) => `> ${c}`).join("\n"));
    }
  }
  if (paragraphs.length === 0) return;
  out.add({ title, text: paragraphs.join("\n\n"), kind: "rpgmaker-event", reviewKind: "dialogue" });
}

function eventTitle(place: string, name: unknown, id: unknown): string {
  const own = typeof name === "string" && name.trim() && !DEFAULT_EVENT_NAME.test(name.trim()) ? name.trim() : "";
  if (place && own) return `${place}: ${own}`;
  return own || (place ? `${place}: event ${String(id ?? "")}`.trim() : `event ${String(id ?? "")}`);
}

export function extractRpgMaker(content: string, out: SectionCollector): void {
  let data: unknown;
  try {
    data = JSON.parse(content);
  } catch (e) {
    out.skipFile(SKIP.parse((e as Error).message));
    return;
  }
  if (data && !Array.isArray(data) && typeof data === "object") {
    const map = data as { displayName?: unknown; events?: unknown; note?: unknown };
    const place = typeof map.displayName === "string" && map.displayName.trim() ? map.displayName.trim() : out.stem;
    if (Array.isArray(map.events)) {
      for (const ev of map.events as { name?: unknown; id?: unknown; pages?: { list?: unknown }[] }[]) {
        if (!ev || !Array.isArray(ev.pages)) continue;
        addEvent(out, eventTitle(place, ev.name, ev.id), ev.pages.map((p) => p?.list));
      }
    }
    return;
  }
  if (Array.isArray(data)) {
    for (const ev of data as { name?: unknown; id?: unknown; list?: unknown; pages?: { list?: unknown }[] }[]) {
      if (!ev || typeof ev !== "object") continue;
      const lists = Array.isArray(ev.pages) ? ev.pages.map((p) => p?.list) : [ev.list];
      addEvent(out, eventTitle("", ev.name, ev.id), lists);
    }
  }
}
