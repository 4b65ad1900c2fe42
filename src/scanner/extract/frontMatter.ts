import { parse as parseYaml } from "yaml";
import type { Section } from "./types.ts";

export interface FrontMatter {
  title?: string;
  hints?: Section["hints"];
  body: string;
  /** Set when a front-matter block exists but is not valid YAML. */
  error?: string;
}

/** Split an optional leading `---` YAML block (title, tags, location) off a Markdown or text file. */
export function splitFrontMatter(content: string): FrontMatter {
  const m = /^---[ \t]*\r?\n/.exec(content);
  if (!m) return { body: content };
  const end = /^(?:---|\.\.\.)[ \t]*$/m;
  const rest = content.slice(m[0].length);
  const close = end.exec(rest);
  if (!close) return { body: content };
  const yamlText = rest.slice(0, close.index);
  const body = rest.slice(close.index + close[0].length).replace(/^\r?\n/, "");
  let data: unknown = simpleFrontMatter(yamlText);
  if (data === undefined) {
    try {
      data = parseYaml(yamlText);
    } catch (e) {
      return { body, error: (e as Error).message };
    }
  }
  if (!data || typeof data !== "object" || Array.isArray(data)) return { body };
  const d = data as Record<string, unknown>;
  const title = typeof d.title === "string" ? d.title : typeof d.name === "string" ? d.name : undefined;
  const tags = toStringList(d.tags);
  const location = typeof d.location === "string" ? d.location : undefined;
  const hints: Section["hints"] = {};
  if (tags.length) hints.tags = tags;
  if (location) hints.location = location;
  return { title, hints, body };
}

/** `[a, b]` or "a, b" → ["a", "b"]. */
export function toStringList(v: unknown): string[] {
  if (typeof v === "string") return v.split(/[,;]/).map((s) => s.trim()).filter(Boolean);
  if (Array.isArray(v)) return v.filter((x): x is string | number => typeof x === "string" || typeof x === "number").map(String);
  return [];
}

const KEY_LINE_RE = /^([A-Za-z_][\w-]*):(?:[ \t]+(.*?))?[ \t]*$/;
const ITEM_LINE_RE = /^[ \t]+-[ \t]+(.*?)[ \t]*$/;
/** A plain or simply quoted scalar the YAML spec reads as that very string (no escapes, comments, anchors, nesting). */
const PLAIN_RE = /^(?![-?:,[\]{}#&*!|>'"%@`\s])[^\n]*$/;

function scalar(v: string): string | undefined {
  if (/^"[^"\\]*"$/.test(v)) return v.slice(1, -1);
  if (/^'(?:[^']|'')*'$/.test(v)) return v.slice(1, -1).replace(/''/g, "'");
  if (!PLAIN_RE.test(v) || v.includes(": ") || v.includes(" #") || v.endsWith(":")) return undefined;
  return v;
}

/**
 * For speed: a wiki's front matter is almost always flat `key: value`, `key: [a, b]` and
 * `- item` lists; reading those by hand costs a tenth of a YAML parse (which was ~40% of a
 * Markdown page's extraction). Anything else — nesting, block scalars, anchors, escapes, duplicate
 * keys, numbers or booleans where the caller wants strings — returns undefined and goes to the parser.
 */
function simpleFrontMatter(text: string): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  let listKey: string | null = null;
  for (const raw of text.split("\n")) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "" || /^\s*#/.test(line)) continue;
    const item = ITEM_LINE_RE.exec(line);
    if (item) {
      const v = scalar(item[1]);
      if (listKey === null || v === undefined) return undefined;
      (out[listKey] as string[]).push(v);
      continue;
    }
    const m = KEY_LINE_RE.exec(line);
    if (!m || Object.hasOwn(out, m[1])) return undefined;
    const value = m[2] ?? "";
    listKey = null;
    if (value === "") {
      out[m[1]] = [];
      listKey = m[1];
    } else if (value.startsWith("[")) {
      if (!value.endsWith("]")) return undefined;
      const inner = value.slice(1, -1).trim();
      const items = inner === "" ? [] : inner.split(",").map((x) => scalar(x.trim()));
      if (items.some((x) => x === undefined || x === "")) return undefined;
      out[m[1]] = items;
    } else {
      const v = scalar(value);
      // YAML would read these as numbers, booleans, null or dates: let the parser decide.
      if (v === undefined || (v === value && /^(?:[-+.\d]|true$|false$|null$|~$|yes$|no$|on$|off$)/i.test(v))) return undefined;
      out[m[1]] = v;
    }
  }
  // A key with no value and no items is YAML null, not an empty list.
  for (const [k, v] of Object.entries(out)) if (Array.isArray(v) && v.length === 0 && !text.includes(`${k}: [`)) out[k] = null;
  return out;
}
