/**
 * Text written for a developer or a settings screen rather than for the world (a project
 * with no lore should yield close to nothing). Used on fine-grained entries only — code strings and
 * comments, scene labels, table entries whose key does not name lore — never on prose documents,
 * where one technical word in a long page says nothing.
 */

/**
 * Words of software, input devices and engine tooling. Left out on purpose: words a world uses too
 * ("class", "script", "file", "build", "platform", "scene", "node", "font", "function").
 */
const TECH_WORD_RE =
  /\b(?:(?:left|right|double|middle)[- ]?click(?:s|ed|ing)?|click(?:s|ed|ing)?|mouse ?(?:wheel|buttons?|cursor|pointer)|hotkeys?|keyboard|gamepad|controller support|checkbox(?:es)?|tool ?tips?|dropdowns?|sliders?|fullscreen|windowed|resolution|framerate|fps|vsync|v-sync|anti-?aliasing|shaders?|textures?|render(?:ing|er|s)?|pipelines?|gameobjects?|prefabs?|inspector|plugins?|api|sdk|null|debug(?:ging)?|parameters?|variables?|assets?|project settings|input (?:system|manager|module|actions?)|locali[sz]ation|locales?|string tables?|unicode|bbcode|regex|regular expressions?|json|yaml|xml|csv|installed|install|enabled?|disabled?|config(?:uration)?|compile[sd]?|runtime|pixels?|viewport|callbacks?|methods?|instances?|namespaces?|serializ(?:ed|ation)|deserializ(?:ed|ation)|markup|ui|gui|hud|url|http|https|github|godot|unity|urp|hdrp|ligatures?|bidi|pseudolocali[sz]ation|placeholder|screen reader|accessibility)\b/gi;
/** `YarnTask`, `LineProviderBehaviour`, `foo.bar()`, `snake_case`: identifiers quoted in a message. */
const IDENTIFIER_RE = /\b[A-Z][a-z]{2,}[A-Z][a-z]\w*|\b\w+\.\w+\(|\b\w+\(\)|\b[a-z]+_[a-z_]+\b/g;

/**
 * Does an entry read as developer, settings or UI text? One technical word in a short text (under 25
 * words), else at least two and one per 30 words: a tutorial page full of clicks is UI help, a
 * chronicle that once mentions a keyboard is not.
 */
export function isTechnicalText(text: string): boolean {
  const words = text.split(/\s+/).length;
  const wanted = words < 25 ? 1 : Math.max(2, Math.ceil(words / 30));
  let hits = 0;
  TECH_WORD_RE.lastIndex = 0;
  while (hits < wanted && TECH_WORD_RE.exec(text)) hits++;
  IDENTIFIER_RE.lastIndex = 0;
  while (hits < wanted && IDENTIFIER_RE.exec(text)) hits++;
  return hits >= wanted && hits > 0;
}

/** `Duration: %bdr`, `Chance: 25`, `Magnitude: N/A`: a label with a number, a placeholder or N/A. */
const STAT_LINE_RE = /\b[A-Z][\w'-]*(?: [\w'-]+){0,2}\s*:\s*(?:[-+]?\d|%\w|N\/A\b|\{\w*\})/g;

/** A template of game-rule figures (a spell effect's duration/chance/magnitude): three or more stat labels. */
export function isStatText(text: string): boolean {
  let n = 0;
  STAT_LINE_RE.lastIndex = 0;
  while (STAT_LINE_RE.exec(text)) if (++n >= 3) return true;
  return false;
}

/** Keys of settings screens, buttons and developer messages: their values are UI, whatever they say. */
export const UI_KEY_RE = /button|tool[-_ ]?tip|menu|popup|hotkey|keybind|checkbox|slider|dropdown|settings?(?![a-z])|confirm|placeholder|cursor/i;
