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
  let data: unknown;
  try {
    data = parseYaml(yamlText);
  } catch (e) {
    return { body, error: (e as Error).message };
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
