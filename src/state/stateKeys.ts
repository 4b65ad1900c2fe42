/**
 * The vocabulary of world and player state: key syntax, value types and limits, in one place.
 * The condition language (src/conditions) reads keys with this syntax, the state routes and the
 * interact body's per-request `state` accept only these keys, and the TypeBox models use
 * STATE_KEY_PATTERN, so every entry point agrees on what a key is.
 */

/** A state value: true/false, a finite number or a short string. */
export type StateValue = boolean | number | string;
export type StateType = "boolean" | "number" | "string";
export const STATE_TYPES: readonly StateType[] = ["boolean", "number", "string"];

export const STATE_LIMITS = {
  /** keys set in one scope (the world of a project; one player of a project) */
  keysPerScope: 200,
  keyChars: 100,
  segments: 8,
  segmentChars: 32,
  stringChars: 200,
  /** declared keys per project, exclusive groups per project, enum values per key */
  declaredKeys: 200,
  exclusiveGroups: 50,
  enumValues: 50,
} as const;

/**
 * Names a key may not use as a segment: the condition language's reserved words (a key must read
 * as a plain dotted name in a condition) and the names every JavaScript object inherits. The first
 * segment may also not be a scope or a built-in name of conditions (`world.x` means the world's x).
 */
const RESERVED_SEGMENTS = [
  "in", "as", "break", "const", "continue", "else", "false", "for", "function", "if", "import", "let", "loop",
  "package", "namespace", "null", "return", "true", "var", "void", "while", "constructor", "prototype",
];
export const RESERVED_ROOTS = ["world", "player", "trust", "turn"] as const;

const segment = `(?!(?:${RESERVED_SEGMENTS.join("|")})(?:\\.|$))[a-z][a-z0-9_]{0,${STATE_LIMITS.segmentChars - 1}}`;
/**
 * A key: 1–8 dot-separated segments, each a lower-case letter then letters, digits or `_` (at most
 * 32), at most 100 characters, e.g. `quest.flood.stage`, `faction.watch`, `weather`.
 */
export const STATE_KEY_PATTERN =
  `^(?=.{1,${STATE_LIMITS.keyChars}}$)(?!(?:${RESERVED_ROOTS.join("|")})(?:\\.|$))` +
  `${segment}(?:\\.${segment}){0,${STATE_LIMITS.segments - 1}}$`;
const KEY_RE = new RegExp(STATE_KEY_PATTERN);

export function isStateKey(v: unknown): v is string {
  return typeof v === "string" && KEY_RE.test(v);
}

/** Why a string is not a key (for a 400's details), or null when it is one. */
export function keyProblem(key: string): string | null {
  if (KEY_RE.test(key)) return null;
  if (key.length === 0 || key.length > STATE_LIMITS.keyChars) return `a key has 1 to ${STATE_LIMITS.keyChars} characters`;
  const parts = key.split(".");
  if ((RESERVED_ROOTS as readonly string[]).includes(parts[0])) return `'${parts[0]}' is reserved: conditions read trust, turn, world.<key> and player.<key>`;
  if (parts.length > STATE_LIMITS.segments) return `a key has at most ${STATE_LIMITS.segments} dot-separated parts`;
  const reserved = parts.find((p) => RESERVED_SEGMENTS.includes(p));
  if (reserved) return `'${reserved}' is a reserved word`;
  return `must be dot-separated names of lower-case letters, digits and _ (each starting with a letter, at most ${STATE_LIMITS.segmentChars} characters), e.g. quest.flood.stage`;
}

export function typeOfValue(v: unknown): StateType | null {
  if (typeof v === "boolean") return "boolean";
  if (typeof v === "number") return Number.isFinite(v) ? "number" : null;
  if (typeof v === "string") return "string";
  return null;
}

/** Why a value cannot be stored, or null when it can. */
export function valueProblem(v: unknown): string | null {
  const type = typeOfValue(v);
  if (!type) return "must be true or false, a finite number or a string";
  if (type === "string" && (v as string).length > STATE_LIMITS.stringChars) return `at most ${STATE_LIMITS.stringChars} characters`;
  return null;
}

/** The exclusive group a key belongs to: the group that is a prefix of it (`pose` for `pose.sitting`). */
export function groupOf(key: string, groups: readonly string[]): string | null {
  for (const g of groups) if (key.startsWith(`${g}.`)) return g;
  return null;
}
