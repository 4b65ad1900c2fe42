/**
 * Keyed tables: `item_sword_name` and `item_sword_desc` are one thing. Entries
 * of one file whose keys share a stem are gathered into one group; the name-like member's
 * text titles it, the others are its text.
 */

// A key's last part that says which facet of the thing it holds.
const FACET_RE =
  /(?:[._:/-]+|(?<=[a-z0-9])(?=[A-Z]))(name|title|displayname|desc|description|descr|text|bio|biography|lore|flavou?r|flavou?rtext|tooltip|summary|details?|info|short|long|body|story|history|quote|caption|label|plural|singular|greeting|barks?|rumou?rs?|dialog(?:ue)?|lines?|message)(?:[._-]?\d+)?$/i;
const NAME_FACET = /^(?:name|title|displayname|caption|label|singular)$/i;

/** The stem and facet of a key: "npc.mira.bio" → {stem: "npc.mira", facet: "bio"}; no facet → the key itself. */
export function keyFacet(key: string): { stem: string; facet: string | null } {
  const m = FACET_RE.exec(key);
  // Unity's "m_Text", "_desc": a field name with a prefix, not a thing's key.
  if (!m || key.slice(0, m.index).replace(/^m_|^_+/, "").length < 2) return { stem: key, facet: null };
  return { stem: key.slice(0, m.index), facet: m[1].toLowerCase() };
}

export function isNameFacet(facet: string | null): boolean {
  return facet !== null && NAME_FACET.test(facet);
}

/** A readable title from a key stem when no member names the thing: "npc.old_mira" → "old mira". */
export function stemTitle(stem: string): string {
  const last = stem.split(/[.:/]+/).filter(Boolean);
  const words = (last.length > 1 ? last.slice(-2).join(" ") : stem)
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .trim();
  return words || stem;
}
