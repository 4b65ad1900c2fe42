import { isPlainObject, type Problems } from "../lore/validate/fields.ts";
import { SELECTIVE_LOGIC, type BookEntry } from "./cardTypes.ts";

/**
 * SillyTavern's per-entry settings beyond the card spec's fields. World Info files keep them on the entry in
 * camelCase (`selectiveLogic`, `sticky`, `useProbability`); SillyTavern's card export keeps them under the
 * entry's `extensions`, mostly in snake_case (`exclude_recursion`, `scan_depth`). Both are read. The timers and
 * the selective logic are mapped (a bad value is a problem, as any malformed field); the rest has no Lorehold
 * equivalent and is named in `unmapped`, with its value, whenever it differs from SillyTavern's default.
 */
export function stSettings(
  e: Record<string, unknown>,
  path: string,
  p: Problems,
): Pick<BookEntry, "selectiveLogic" | "sticky" | "cooldown" | "delay" | "unmapped"> {
  const ext = isPlainObject(e.extensions) ? e.extensions : {};
  const read = (...names: string[]): { at: string; v: unknown } | null => {
    for (const n of names) {
      if (e[n] !== undefined && e[n] !== null) return { at: `${path}.${n}`, v: e[n] };
      if (ext[n] !== undefined && ext[n] !== null) return { at: `${path}.extensions.${n}`, v: ext[n] };
    }
    return null;
  };
  const timer = (name: string): number | null => {
    const r = read(name);
    if (!r || r.v === 0) return null;
    if (typeof r.v !== "number" || !Number.isInteger(r.v) || r.v < 0) {
      p.add(r.at, "must be a whole number of messages (0: off)");
      return null;
    }
    return r.v;
  };
  let selectiveLogic: BookEntry["selectiveLogic"] = "AND ANY";
  const logic = read("selectiveLogic", "selective_logic");
  if (logic) {
    if (typeof logic.v === "number" && Number.isInteger(logic.v) && logic.v >= 0 && logic.v < SELECTIVE_LOGIC.length) selectiveLogic = SELECTIVE_LOGIC[logic.v];
    else p.add(logic.at, "must be 0 (AND ANY), 1 (NOT ALL), 2 (NOT ANY) or 3 (AND ALL)");
  }

  const unmapped: string[] = [];
  const note = (what: string, why: string) => unmapped.push(`${what}: ${why}`);
  const useProbability = read("useProbability", "use_probability");
  const probability = read("probability");
  if (useProbability?.v !== false && typeof probability?.v === "number" && probability.v < 100) {
    note(`probability ${probability.v}%`, "a chance of inclusion; Lorehold includes every entry it finds");
  }
  const group = read("group");
  if (typeof group?.v === "string" && group.v.trim()) note(`group '${group.v.trim()}'`, "inclusion groups (one entry of a group at a time) have no equivalent");
  for (const [names, label] of [
    [["caseSensitive", "case_sensitive"], "case_sensitive"],
    [["matchWholeWords", "match_whole_words"], "match_whole_words"],
  ] as const) {
    if (read(...names)?.v === true) note(label, "a keyword-matching option; Lorehold matches by meaning and by words");
  }
  const scan = read("scanDepth", "scan_depth");
  if (typeof scan?.v === "number") note(`scan_depth ${scan.v}`, "Lorehold searches with the player's line and the one before it");
  for (const [names, label] of [
    [["excludeRecursion", "exclude_recursion"], "exclude_recursion"],
    [["preventRecursion", "prevent_recursion"], "prevent_recursion"],
    [["delayUntilRecursion", "delay_until_recursion"], "delay_until_recursion"],
  ] as const) {
    const r = read(...names);
    if (r && r.v !== false && r.v !== 0) note(label, "entries never activate one another in Lorehold");
  }
  // A card's own `position` is before_char/after_char; SillyTavern's precise one is under extensions.
  const position = ext.position !== undefined && ext.position !== null ? { at: `${path}.extensions.position`, v: ext.position } : read("position");
  // 0/1 (and the card spec's before_char/after_char) place the entry around the character's text; the others
  // (at a depth, in the author's note, among example messages) place it where Lorehold never puts lore.
  if (position && ![0, 1, "before_char", "after_char"].includes(position.v as never)) {
    const depth = read("depth");
    note(`position ${JSON.stringify(position.v)}${position.v === 4 && typeof depth?.v === "number" ? ` (depth ${depth.v})` : ""}`, "lore always comes with the player's turn");
  }
  const automation = read("automationId", "automation_id");
  if (typeof automation?.v === "string" && automation.v.trim()) note("automation_id", "SillyTavern's automations have no equivalent");
  return { selectiveLogic, sticky: timer("sticky"), cooldown: timer("cooldown"), delay: timer("delay"), unmapped };
}
