import type { SectionCollector } from "../SectionCollector.ts";
import { SKIP } from "../text.ts";
import { readDelimited } from "./csv.ts";
import { relaxJson } from "../relaxedJson.ts";

/**
 * Starsector's description table (`data/strings/descriptions.csv`): `id,type,text1,text2,text3,text4,text5,notes`.
 * Each row describes one thing (a ship, a planet, a faction, an item) in up to five text columns (the codex
 * text, a second paragraph, the text shown on approach …); `notes` is for the modder. Read as a generic sheet,
 * `notes` is the only column named like text, so every row came out empty.
 */
const HEADER_RE = /^\uFEFF?id,type,text1(?:,text[2-9])*(?:,|\r?\n)/;

export function isStarsectorDescriptions(content: string): boolean {
  return HEADER_RE.test(content.slice(0, 200));
}

/** `SHIP` → ship, `CUSTOM` → custom: the kind of thing the row describes, for the title. */
const TYPE_WORD: Record<string, string> = { SHIP: "ship", WEAPON: "weapon", SHIP_SYSTEM: "ship system", RESOURCE: "item", PLANET: "planet", CUSTOM: "object", ACTION: "ability", ASTEROID: "asteroid", FACTION: "faction", STAR: "star", TERRAIN: "terrain" };

export function extractStarsectorDescriptions(content: string, out: SectionCollector): void {
  let rows: string[][];
  try {
    rows = readDelimited(content, ",");
  } catch (e) {
    out.skipFile(SKIP.parse((e as Error).message));
    return;
  }
  const header = rows[0].map((h) => h.trim().toLowerCase());
  const textCols = header.map((h, i) => (/^text\d$/.test(h) ? i : -1)).filter((i) => i >= 0);
  for (const r of rows.slice(1)) {
    const id = (r[0] ?? "").trim();
    // A row whose id starts with # is a comment (Starsector's CSV loader skips it); blank ids are spacers.
    if (!id || id.startsWith("#")) continue;
    const text = textCols
      .map((i) => (r[i] ?? "").trim())
      .filter(Boolean)
      .join("\n\n");
    const type = (r[1] ?? "").trim();
    const what = TYPE_WORD[type.toUpperCase()] ?? type.toLowerCase();
    out.add({ title: what ? `${id} (${what})` : id, text, kind: "csv-row", reviewKind: type.toUpperCase() === "FACTION" ? "faction" : type.toUpperCase() === "PLANET" || type.toUpperCase() === "STAR" ? "location" : "item" });
  }
}

/**
 * A Starsector combat-chatter character (`data/config/chatter/characters/*.json`: `"name"`, then `"lines"`: a
 * category each, `start`, `retreat`, `hull_50` …, of `{"text": …}` lines): one speaker's lines. Read as generic
 * JSON, each line was a loose string titled `<file> #n`.
 */
export function isStarsectorChatter(relativePath: string, content: string): boolean {
  return /(?:^|\/)chatter\/characters\/[^/]+\.json$/i.test(relativePath) && /"lines"\s*:\s*\{/.test(content);
}

export function extractStarsectorChatter(content: string, out: SectionCollector): void {
  let data: { name?: unknown; lines?: Record<string, unknown> };
  try {
    data = JSON.parse(relaxJson(content));
  } catch (e) {
    out.skipFile(SKIP.parse((e as Error).message));
    return;
  }
  const speaker = typeof data.name === "string" && data.name.trim() ? data.name.trim() : out.stem;
  for (const list of Object.values(data.lines ?? {})) {
    if (!Array.isArray(list)) continue;
    for (const line of list as { text?: unknown }[]) {
      if (typeof line?.text === "string" && line.text.trim()) out.add({ title: speaker, text: line.text.trim(), kind: "json-object", speaker, reviewKind: "dialogue" });
    }
  }
}
