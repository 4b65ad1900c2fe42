import type { SectionCollector } from "./SectionCollector.ts";
import type { Section } from "./types.ts";
import { isTextKey, titleRank, usableTitle } from "./fieldNames.ts";
import { toStringList } from "./frontMatter.ts";
import { keyFacet } from "./keyGroups.ts";
import { looksLikeWords, normalizeKey, SKIP, stripAngleTags } from "./text.ts";
import { LazyJson, opened } from "./lazyJson.ts";
import { dialogueLines } from "./dialogueLines.ts";

export interface WalkOptions {
  /** Kind of a section made from an object with text fields ("json-object", "unity-text" …). */
  objectKind: string;
  /** Kind of a loose prose string found under some other key ("json-string" …). */
  stringKind: string;
  /** Title for the root object when it has no title field of its own (Unity: the GameObject's name). */
  rootTitle?: string | null;
  /** Keys never descended into (Unity's m_Script, m_GameObject …). */
  ignoreKey?: (normalizedKey: string) => boolean;
  /** Report too-short objects in the summary line only (scene files are full of short UI labels). */
  quietObjects?: boolean;
}

/**
 * Walks parsed JSON / YAML / TOML / Unity YAML. An object with one or more text-like fields
 * (description, lore, bio, dialogue …) becomes one section titled by its name/title-like field
 * (else the key it sits under); its other nested values are walked in turn. Loose prose strings
 * under other keys become quiet sections titled by their key. Iterative, so deep nesting cannot
 * overflow the stack.
 */
export function walkStructured(root: unknown, out: SectionCollector, opts: WalkOptions): void {
  type Frame = { value: unknown; key: string | null; isRoot: boolean };
  const stack: Frame[] = [{ value: root, key: null, isRoot: true }];
  while (stack.length) {
    const frame = stack.pop()!;
    const { key, isRoot } = frame;
    let value = frame.value;
    if (value instanceof LazyJson) {
      // A big JSON file's container, parsed only now (lazyJson.ts); a broken one is skipped, the rest read on.
      try {
        const chars = value.chars;
        value = value.open();
        out.work(chars);
      } catch (e) {
        out.skip(key ?? "(a JSON value)", SKIP.parse((e as Error).message));
        continue;
      }
    }
    if (typeof value === "string") {
      if (looksLikeWords(value)) out.add({ title: key, text: clean(value), kind: opts.stringKind, quiet: true, groupKey: key && keyFacet(key).facet ? key : undefined });
      continue;
    }
    if (!value || typeof value !== "object") continue;
    const children: Frame[] = [];
    if (Array.isArray(value)) {
      const page = pageOf(value);
      const lines = page ? null : dialogueLines(value);
      if (lines) {
        // Spoken lines: each speaker's lines of the file are one candidate titled by the speaker.
        for (const line of lines) {
          out.add({ title: line.speaker, text: clean(line.text), kind: opts.objectKind, reviewKind: "dialogue", speaker: line.speaker, quiet: opts.quietObjects });
          for (const [k, v] of line.rest) children.push({ value: v, key: k, isRoot: false });
        }
      } else if (page) {
        // A page of prose (a logbook entry: [Headline, "…"], paragraphs, [Image, …]) is one section.
        out.add({ title: page.title ?? key, text: page.paragraphs.map(clean).join("\n\n"), kind: opts.stringKind, quiet: true });
        for (const item of value) if (typeof item !== "string" && !page.headings.has(item)) children.push({ value: item, key: null, isRoot: false });
      } else {
        // Array items inherit the array's key only when they are strings (a list of rumours under "rumors").
        for (const item of value) children.push({ value: item, key: typeof item === "string" ? key : null, isRoot: false });
      }
    } else {
      const entries = Object.entries(value as Record<string, unknown>);
      let title: string | null = null;
      let bestRank = Infinity;
      const textParts: string[] = [];
      const consumed = new Set<string>();
      for (const [k, v] of entries) {
        const rank = titleRank(k);
        if (rank >= 0 && rank < bestRank) {
          const t = usableTitle(v);
          if (t) {
            title = t;
            bestRank = rank;
            consumed.add(k);
          }
        }
      }
      // A catalog ({"sword_name": …, "sword_desc": …}) is many things, not one: its strings go to key groups.
      const catalog = title === null && entries.some(([k, v]) => typeof v === "string" && keyFacet(k).facet !== null);
      for (const [k, v] of entries) {
        if (catalog || consumed.has(k) || !isTextKey(k)) continue;
        const text = textOf(openedSafely(v));
        if (text !== null) {
          if (text.trim()) textParts.push(text);
          consumed.add(k);
        }
      }
      if (textParts.length) {
        const hints: Section["hints"] = {};
        for (const [k, v] of entries) {
          const nk = normalizeKey(k);
          if (nk === "tags" || nk === "knowledgetags") hints.tags = toStringList(openedSafely(v));
          else if (nk === "location" && typeof v === "string") hints.location = v;
        }
        out.add({
          title: title ?? (isRoot ? opts.rootTitle : null) ?? key,
          text: textParts.join("\n\n"),
          kind: opts.objectKind,
          hints,
          quiet: opts.quietObjects,
        });
      }
      for (const [k, v] of entries) {
        if (consumed.has(k)) continue;
        if (opts.ignoreKey?.(normalizeKey(k))) continue;
        if (typeof v === "string" && !catalog && (titleRank(k) >= 0 || normalizeKey(k) === "location")) continue;
        children.push({ value: v, key: k, isRoot: false });
      }
    }
    // Reverse so the stack yields children in document order.
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
}

/** A lazily read value a field's meaning depends on (a text or tag list), opened; null when it cannot be read. */
function openedSafely(v: unknown): unknown {
  try {
    return opened(v);
  } catch {
    return null;
  }
}

/** A text field's value as prose: a string, or a list of strings one per line; null for anything else. */
function textOf(v: unknown): string | null {
  if (typeof v === "string") return clean(v);
  if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === "string")) return v.map(clean).join("\n");
  return null;
}

/** Rich-text tags (<b>, <color=…>, [b]) are markup, not lore. */
function clean(s: string): string {
  return stripAngleTags(s).replace(/\[\/?(?:b|i|u|s|color|size|url|center|font)(?:=[^\]\n]{0,100})?\]/gi, "");
}

const HEADING_TAG_RE = /^(?:headline|heading|header|title|caption)$/i;

/**
 * An array holding two or more prose paragraphs (strings of 4+ words), and perhaps a
 * `[Headline, "20th November 1740"]` pair naming it: the page's title and paragraphs, else null.
 * A list of short strings (names, rumours of one line) stays a list.
 */
function pageOf(items: unknown[]): { title: string | null; paragraphs: string[]; headings: Set<unknown> } | null {
  const paragraphs: string[] = [];
  let title: string | null = null;
  const headings = new Set<unknown>();
  for (const raw of items) {
    // A heading pair of a lazily read file is a small unparsed array: opened to be recognised.
    const item = raw instanceof LazyJson && raw.isArray && raw.chars <= 512 ? openedSafely(raw) : raw;
    if (typeof item === "string") {
      if (item.trim().split(/\s+/).length >= 4 && looksLikeWords(item)) paragraphs.push(item.trim());
    } else if (Array.isArray(item) && item.length === 2 && typeof item[0] === "string" && typeof item[1] === "string" && HEADING_TAG_RE.test(item[0])) {
      title ??= usableTitle(item[1]);
      headings.add(raw);
    }
  }
  return paragraphs.length >= 2 ? { title, paragraphs, headings } : null;
}
