import type { SectionCollector } from "../SectionCollector.ts";
import { MIN_LETTERS, SKIP, countLetters } from "../text.ts";
import { keyFacet } from "../keyGroups.ts";

/**
 * Paradox localisation (Stellaris, Crusader Kings, Europa Universalis, Hearts of Iron, Victoria):
 * a `.yml` that is not YAML. A header `l_<language>:` (a BOM before it is usual), then one entry a
 * line, ` KEY:0 "text"` (the number is a version and may be absent), `#` comments; the text runs
 * to the line's last quote and may hold unescaped quotes. Parsed as YAML, most files fail on those.
 */

const HEADER_RE = /^\s*l_([a-z_]+)\s*:\s*(?:#.*)?$/;
const ENTRY_RE = /^\s*([\w.'-]+)\s*:\s*\d*\s*"(.*)"\s*(?:#.*)?$/;

/** The localisation's language header (`l_english:` → "english"), or null when the file is not one. */
export function paradoxLanguage(content: string): string | null {
  const head = content.slice(0, 2000).replace(/^\uFEFF/, "").split(/\r?\n/);
  for (const line of head) {
    const t = line.trim();
    if (!t || t.startsWith("#")) continue;
    return HEADER_RE.exec(t)?.[1] ?? null;
  }
  return null;
}

/**
 * Keys of game rules rather than the world: tooltips, modifiers, effects, costs, triggers and the
 * like (`edict_x_tooltip`, `mod_pop_growth_mult`, `xyz_effect_desc`) explain what a thing does in play.
 */
const MECHANICS_KEY_RE = /(?:^|_)(?:tooltips?|tt|modifiers?|mod|mult|add|effects?|costs?|upkeep|triggers?|requirements?|unlock|button|opinion|job|jobs|cooldown|bonus|penalty|ai|alert|notification|short)(?:_|$)/i;

/**
 * Paradox games name their interface strings in capitals (`EMPIRE_SHIP_SIZE_LIMIT_REACHED`, `TOPBAR_OWNED_SYSTEMS`)
 * and their content in lower case (`turian_hier_origin_desc`); a mod that copies the base game's interface file
 * brings thousands of them. A capitalised key still names lore when it says so (`START_SCREEN_…`, `LOADING_TIP_5`); `…_DESC` in capitals describes a screen or an action (`POLICY_DESC`, `HIRE_NEW_GOVERNOR_DESC`).
 */
const INTERFACE_KEY_RE = /^[A-Z][A-Z0-9_]*$/;
const LORE_CAPS_KEY_RE = /(?:^|_)(?:START_SCREEN|TIPS?|QUOTES?|LORE|HISTORY|STORY|BIO|FLAVOU?R|INTRO|BACKGROUND|EPILOGUE|PROLOGUE)(?:_|$)/;

/** `$VAR$`, `§Y…§!` colours, `[Root.GetName]` scopes, `£icon£` icons, `\n` line breaks. */
export function cleanParadoxText(s: string): string {
  return s
    .replace(/\\n/g, "\n")
    .replace(/\\"/g, '"')
    .replace(/\$[\w|.]*\$/g, "")
    .replace(/§[A-Za-z!]/g, "")
    .replace(/£[\w|]+£?/g, "")
    .replace(/\[[\w.'|]+\]/g, "")
    .replace(/[ \t]+/g, " ")
    .replace(/ +([.,;:!?])/g, "$1")
    .split("\n")
    .map((l) => l.trim())
    .join("\n")
    .trim();
}

/**
 * A mod's `replace/` folder overrides a few of the base game's keys; a file there with thousands of entries is
 * the base game's own table copied whole (Stellaris's interface strings), not the mod's writing.
 */
const BASE_GAME_COPY_ENTRIES = 1000;

export function extractParadoxLocalisation(content: string, out: SectionCollector): void {
  const lines = content.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (/(?:^|\/)replace\//i.test(out.sourceFile)) {
    let entries = 0;
    for (const line of lines) if (ENTRY_RE.test(line)) entries++;
    if (entries > BASE_GAME_COPY_ENTRIES) {
      out.skipFile(`${PARADOX_BASE_COPY} (${entries} entries)`);
      return;
    }
  }
  let sawHeader = false;
  const entries: { key: string; text: string }[] = [];
  let mechanics = 0;
  let placeholders = 0;
  let ui = 0;
  for (const line of lines) {
    const t = line.trim();
    if (!t || t.startsWith("#")) continue;
    if (!sawHeader && HEADER_RE.test(t)) {
      sawHeader = true;
      continue;
    }
    const m = ENTRY_RE.exec(line);
    if (!m) continue;
    const [, key, raw] = m;
    // An untranslated placeholder repeats its own key ("planet_forced_growth_desc").
    if (raw.trim() === key || /^\$[\w.]+\$$/.test(raw.trim())) {
      placeholders++;
      continue;
    }
    if (MECHANICS_KEY_RE.test(key)) {
      mechanics++;
      continue;
    }
    if (INTERFACE_KEY_RE.test(key) && !LORE_CAPS_KEY_RE.test(key)) {
      ui++;
      continue;
    }
    const text = cleanParadoxText(raw);
    if (!text) continue;
    entries.push({ key, text });
  }
  const members = new Map<string, number>();
  for (const e of entries) members.set(keyFacet(e.key).stem, (members.get(keyFacet(e.key).stem) ?? 0) + 1);
  for (const { key, text } of entries) {
    // A lone short text (a star's name in a name list) joins the file's short entries; a name with its
    // description (`asari_rep_origin` + `asari_rep_origin_desc`) is one group, titled by the key.
    if (members.get(keyFacet(key).stem) === 1 && countLetters(text, MIN_LETTERS) < MIN_LETTERS) out.add({ title: null, text, kind: "keyed-entry", quiet: true });
    else out.add({ title: key, text, kind: "keyed-entry", quiet: true, groupKey: key });
  }
  if (!sawHeader) out.skipFile(SKIP.parse("no l_<language>: header"));
  if (mechanics) out.skip(`${mechanics} ${mechanics === 1 ? "entry" : "entries"}`, PARADOX_MECHANICS);
  if (ui) out.skip(`${ui} ${ui === 1 ? "entry" : "entries"}`, SKIP.uiText);
  if (placeholders) out.skip(`${placeholders} ${placeholders === 1 ? "entry" : "entries"}`, PARADOX_PLACEHOLDER);
}

export const PARADOX_MECHANICS = "Game mechanics (tooltips, modifiers, effects: not lore)";
export const PARADOX_PLACEHOLDER = "Placeholder (the text repeats its key or is one variable)";
export const PARADOX_BASE_COPY = "Skipped: the base game's localisation copied into a mod's replace/ folder";
