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

/** Identifiers in a text (as isTechnicalText counts them), up to `cap`. */
export function countIdentifiers(text: string, cap: number): number {
  let n = 0;
  IDENTIFIER_RE.lastIndex = 0;
  while (n < cap && IDENTIFIER_RE.exec(text)) n++;
  return n;
}

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

/**
 * Game-rule terms of Chinese RPG text (damage, attribute, skill, turn, resistance, bonus, enemy/our side, attack,
 * defence, HP, energy, speed, crit, hit, shield, buff, stacks, difficulty, win/lose condition, set bonus).
 */
const CJK_RULE_RE = /伤害|属性|技能|回合|抗性|加成|敌方|我方|攻击力|防御力|生命值|能量值|速度|暴击|命中|闪避|护盾|增益|减益|层数|难度|胜利条件|失败条件|件套/g;

/**
 * A template of game-rule figures (a spell effect's duration/chance/magnitude): three or more stat labels. In
 * Chinese, where rules read as sentences (a battle's briefing, an equipment set's effects), five rule terms and one
 * per 25 characters: a story's battle scene names damage or a turn now and then, a rules text in every clause.
 */
export function isStatText(text: string): boolean {
  let n = 0;
  STAT_LINE_RE.lastIndex = 0;
  while (STAT_LINE_RE.exec(text)) if (++n >= 3) return true;
  const first = text.charCodeAt(0);
  if (first < 0x3400 && !/[\u3400-\u9fff]/.test(text.slice(0, 200))) return false;
  let rules = 0;
  CJK_RULE_RE.lastIndex = 0;
  while (CJK_RULE_RE.exec(text)) rules++;
  return rules >= 5 && rules * 25 >= text.length;
}

/** Keys of settings screens, buttons and developer messages: their values are UI, whatever they say. */
export const UI_KEY_RE = /button|tool[-_ ]?tip|menu|popup|hotkey|keybind|checkbox|slider|dropdown|settings?(?![a-z])|confirm|placeholder|cursor/i;

/** A named macro of a game's message templates ("a house in %town of %region"): filled in by the program. */
const NAMED_MACRO_RE = /%[a-z]{2,}\b/;

/** A table value that is a program's message template: short, with a named macro. */
export function isMessageTemplate(text: string): boolean {
  return text.length < 200 && text.includes("%") && NAMED_MACRO_RE.test(text);
}

const LABEL_LINE_RE = /^\p{L}[\p{L}'-]*(?: \p{L}[\p{L}'-]*)?$/u;

/**
 * A table value that is a list of labels, one or two words a line and no sentence ("Commoners / Merchants /
 * Scholars / Nobility / All", a guild's ranks): a screen's choices, not a text.
 */
export function isLabelList(text: string): boolean {
  if (!text.includes("\n")) return false;
  const lines = text.split("\n");
  return lines.length >= 4 && lines.every((l) => LABEL_LINE_RE.test(l.trim()));
}

/** Task, reward, claim, unlock: a short Chinese text naming one is a game's menu or notification ("茶馆任务！"). */
const CJK_UI_RE = /任务|奖励|领取|解锁/;

export function isShortCjkUi(text: string): boolean {
  return text.length <= 16 && CJK_UI_RE.test(text);
}
